import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { slackSignatureHeaders } from '../../src/workspace/slack-fake/signing.ts';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  /** The JSON event envelope, or the interactivity payload, or the slash command's form fields. */
  json: Record<string, unknown>;
  signatureValid: boolean;
}

/**
 * Stands where the bot's `/slack/events` would: records each request, checks its Slack signature with
 * the fake's signing helper, and answers with whatever the test scripts (default: an empty 200 ack).
 */
export async function startBotReceiver(signingSecret: string) {
  const received: Received[] = [];
  let answer: (request: Received) => { status: number; body?: unknown } = () => ({ status: 200 });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const timestampS = Number(req.headers['x-slack-request-timestamp']);
      const expected = slackSignatureHeaders({ signingSecret, body, timestampS })['x-slack-signature'];
      const request: Received = {
        headers: req.headers,
        body,
        json: parse(body, req.headers['content-type']),
        signatureValid: req.headers['x-slack-signature'] === expected,
      };
      received.push(request);
      const reply = answer(request);
      res.writeHead(reply.status, reply.body === undefined ? {} : { 'content-type': 'application/json' });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    eventsUrl: `http://127.0.0.1:${port}/slack/events`,
    received,
    answerWith(next: typeof answer) {
      answer = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function parse(body: string, contentType: string | undefined): Record<string, unknown> {
  if (contentType === 'application/json') return JSON.parse(body) as Record<string, unknown>;
  const form = Object.fromEntries(new URLSearchParams(body));
  return form.payload ? (JSON.parse(form.payload) as Record<string, unknown>) : form;
}
