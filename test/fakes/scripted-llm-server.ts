import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as a fake LLM server saw it; `body` is the parsed JSON (or the raw text if it was not JSON). */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** What the server writes for one scripted reply. `delayMs` holds the answer back (a stalled model). */
export interface WireReply {
  status: number;
  headers?: Record<string, string>;
  body: string | object;
  delayMs?: number;
}

export interface ScriptedLlmServer<Reply> {
  /** Base URL to hand the SDK. */
  url: string;
  requests: RecordedRequest[];
  /** Replies are used in order, one per request. */
  enqueue(...replies: Reply[]): void;
  /** Scripted replies not yet used. */
  readonly pending: number;
  /** Everything that went wrong on the server side: unexpected requests, bad auth, wrong path. */
  readonly problems: readonly string[];
  /** Stops the server; rejects if a request was unexpected or a scripted reply was never used. */
  close(): Promise<void>;
}

export interface ScriptedLlmServerOptions<Reply> {
  name: string;
  /** Path prefix inside the base URL, e.g. '/v1' for OpenAI ('' for Anthropic, whose SDK adds /v1). */
  basePath: string;
  endpoint: string;
  /** A problem description when the request lacks credentials; undefined when they are fine. */
  checkAuth(headers: IncomingHttpHeaders): string | undefined;
  /** The reply on the wire, or a problem when the request does not fit what the script expected. */
  render(reply: Reply, request: RecordedRequest, index: number): WireReply | { problem: string };
  /** The vendor's error envelope, so the SDK shows our message. */
  errorBody(message: string): object;
}

/**
 * The shared engine of the fake LLM servers: a queue of scripted replies on 127.0.0.1 that answers
 * anything unscripted with a loud 500 (marked not-retryable) and makes close() fail the test.
 */
export async function startScriptedLlmServer<Reply>(options: ScriptedLlmServerOptions<Reply>): Promise<ScriptedLlmServer<Reply>> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  const problems: string[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const path = (req.url ?? '/').split('?')[0]!;
      const request: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body: parseJson(text) };
      requests.push(request);
      const index = requests.length;
      const fail = (status: number, problem: string) => {
        problems.push(`${options.name}: request #${index} ${request.method} ${path}: ${problem}`);
        res.writeHead(status, { 'content-type': 'application/json', 'x-should-retry': 'false' });
        res.end(JSON.stringify(options.errorBody(`${options.name}: ${problem}`)));
      };
      if (request.method !== 'POST' || path !== `${options.basePath}${options.endpoint}`)
        return fail(404, `no such endpoint (expected POST ${options.basePath}${options.endpoint})`);
      const authProblem = options.checkAuth(req.headers);
      if (authProblem) return fail(401, authProblem);
      const reply = queue.shift();
      if (reply === undefined) return fail(500, 'unexpected request: no scripted reply left');
      const wire = options.render(reply, request, index);
      if ('problem' in wire) return fail(500, wire.problem);
      const send = () => {
        if (res.destroyed) return; // the client gave up (timeout) while we stalled
        const body = typeof wire.body === 'string' ? wire.body : JSON.stringify(wire.body);
        res.writeHead(wire.status, { 'content-type': 'application/json', ...wire.headers });
        res.end(body);
      };
      if (!wire.delayMs) return send();
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, wire.delayMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${options.basePath}`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    get pending() {
      return queue.length;
    },
    problems,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      const unused = queue.length ? [`${options.name}: ${queue.length} scripted repl${queue.length === 1 ? 'y was' : 'ies were'} never requested`] : [];
      const all = [...problems, ...unused];
      if (all.length) throw new Error(all.join('\n'));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(''));
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
