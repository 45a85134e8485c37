/**
 * Slack's side of an ack bench, kept out of the timing: each request is built and signed before the
 * clock starts (Slack does that on its own machines), then sent over a keep-alive `node:http` agent,
 * which costs this process far less per request than `fetch`. On a two-core machine the sender shares
 * the CPU with the bot, so a heavy sender would be measured as the bot's latency.
 */
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { SlackDriver, type EnvelopeType } from '../../src/workspace/slack-fake/index.ts';
import { slackSignatureHeaders } from '../../src/workspace/slack-fake/signing.ts';

export interface PreparedRequest {
  body: string;
  headers: Record<string, string>;
}

/** A driver whose calls are captured, encoded and signed as Slack would send them over HTTP, not sent. */
export function preparingDriver(signingSecret: string): { driver: SlackDriver; take(): PreparedRequest } {
  let last: PreparedRequest | undefined;
  const encode = (type: EnvelopeType, payload: Record<string, unknown>): [string, string] =>
    type === 'events_api'
      ? [JSON.stringify(payload), 'application/json']
      : type === 'interactive'
        ? [new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), 'application/x-www-form-urlencoded']
        : [new URLSearchParams(payload as Record<string, string>).toString(), 'application/x-www-form-urlencoded'];
  const driver = new SlackDriver({
    signingSecret,
    transport: {
      async deliver(type, payload) {
        const [body, contentType] = encode(type, payload);
        last = {
          body,
          headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)), ...slackSignatureHeaders({ signingSecret, body }) },
        };
        return { status: 200, body: '' };
      },
    },
  });
  return {
    driver,
    take() {
      if (!last) throw new Error('nothing prepared');
      const taken = last;
      last = undefined;
      return taken;
    },
  };
}

/** How the sender's part of a burst went: sockets opened, and the spread of the moments its requests were written out. */
export interface SenderShape {
  sends: number;
  newSockets: number;
  writeSpreadMs: number;
}

/** One request's moments (performance.now()): handed to the sender, written to its socket, its whole response read. */
export interface Sent {
  status: number;
  calledAt: number;
  writtenAt: number;
  endedAt: number;
}

/** Sends prepared requests to one URL; resolves with the status and its moments once the whole response is read. */
export function presignedSender(url: string): {
  /** Nothing to build ahead here: `node:http` builds each request as it sends it. */
  ready(prepared: PreparedRequest): void;
  send(prepared: PreparedRequest): Promise<Sent>;
  /** The shape of the sends since the last call. */
  shape(): SenderShape;
  close(): void;
} {
  // An idle socket is closed here before the bot's server closes it (Node's keep-alive timeout, 5 s): a request
  // written to a socket the server is closing meanwhile would fail with ECONNRESET (seen under load, when the
  // sequential rounds outlast 5 s and the burst after them reuses the sockets the warm-up burst opened).
  const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 4_000 });
  const target = new URL(url);
  let written: number[] = [];
  let opened = 0;
  // Each socket counted once, when it connects: a listener added on every request to a reused socket piled up
  // (MaxListenersExceededWarning, "11 connect listeners added to [Socket]"), as it never fires there.
  const seen = new WeakSet<object>();
  const countNew = (socket: Socket) => {
    if (seen.has(socket)) return;
    seen.add(socket);
    socket.once('connect', () => (opened += 1));
  };
  return {
    ready: () => undefined,
    send: (prepared) =>
      new Promise((resolve, reject) => {
        const calledAt = performance.now();
        let writtenAt = Number.NaN;
        const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: prepared.headers, agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, calledAt, writtenAt, endedAt: performance.now() }));
        });
        req.on('socket', countNew);
        req.on('finish', () => written.push((writtenAt = performance.now())));
        req.on('error', reject);
        req.end(prepared.body);
      }),
    shape() {
      const shape = { sends: written.length, newSockets: opened, writeSpreadMs: written.length ? Math.max(...written) - Math.min(...written) : 0 };
      written = [];
      opened = 0;
      return shape;
    },
    close: () => agent.destroy(),
  };
}
