import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { chatMethods } from './chat-methods.ts';
import { directoryMethods } from './directory-methods.ts';
import { fail, type MethodResult, type Params } from './params.ts';
import { createViewMethods } from './view-methods.ts';
import { WorkspaceModel } from './workspace-model.ts';

export interface RecordedCall {
  method: string;
  params: Params;
  /** HTTP status sent: 200, or 429 when a rate limit was scripted. */
  status: number;
  response: MethodResult | undefined;
  at: number;
}

/**
 * Serves requests outside the Web API (`/api/`, `/respond/`) on the same port: the local workspace's
 * page and browser API. Returns true when it answered; false falls through to 404.
 */
export type ExtraRoutes = (req: IncomingMessage, res: ServerResponse, body: string) => boolean;

interface Script {
  method: string;
  remaining: number;
  reply: { kind: 'rate-limit'; retryAfterS: number } | { kind: 'error'; error: string };
}

/**
 * A fake Slack Web API on 127.0.0.1 that @slack/web-api reaches through `slackApiUrl`. It keeps a
 * workspace model, records every call, rejects Block Kit that breaks Slack's limits, and lets a test
 * script 429s (with Retry-After) or errors for a method.
 */
export class SlackFakeServer {
  readonly model = new WorkspaceModel();
  readonly calls: RecordedCall[] = [];
  private readonly events = new EventEmitter();
  private readonly scripts: Script[] = [];
  private readonly triggers = new Map<string, { user: string; at: number }>();
  private readonly handlers: Record<string, (params: Params, model: WorkspaceModel, baseUrl: string) => MethodResult>;
  private server: Server | undefined;
  private base = '';
  private socketMode: { appToken: string; url: () => string } | undefined;

  constructor(private readonly options: { token?: string; extraRoutes?: ExtraRoutes } = {}) {
    this.handlers = { ...chatMethods, ...directoryMethods, ...createViewMethods(this.triggers) };
    this.events.setMaxListeners(1000);
  }

  /** `http://127.0.0.1:PORT/api/`, the value for `slackApiUrl` (trailing slash included). */
  get apiUrl(): string {
    return `${this.base}/api/`;
  }

  get origin(): string {
    return this.base;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** The next `times` calls of `method` get HTTP 429 with `Retry-After: retryAfterS`. */
  rateLimit(method: string, times: number, retryAfterS = 1): void {
    this.scripts.push({ method, remaining: times, reply: { kind: 'rate-limit', retryAfterS } });
  }

  /** The next `times` calls of `method` answer `{ok:false, error}`. */
  failWith(method: string, error: string, times = 1): void {
    this.scripts.push({ method, remaining: times, reply: { kind: 'error', error } });
  }

  /**
   * Serve `apps.connections.open` for Socket Mode: called with the app-level token (not the bot's),
   * it answers a fresh WebSocket URL from `url` each time, as Slack does on every (re)connect.
   */
  acceptSocketMode(options: { appToken: string; url: () => string }): void {
    this.socketMode = options;
  }

  /** A trigger id as a click would carry; views.open refuses it 3 s later. */
  issueTrigger(user: string): string {
    const id = `${Date.now()}.${randomUUID().slice(0, 8)}`;
    this.triggers.set(id, { user, at: Date.now() });
    return id;
  }

  /** A response_url for a slash command or interaction; what is posted there lands in model.responses. */
  responseUrl(): string {
    return `${this.base}/respond/${randomUUID()}`;
  }

  callsOf(method: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Resolves once a successful call matching `predicate` has been recorded (including ones already made). */
  waitForCall(method: string, predicate: (params: Params) => boolean = () => true, timeoutMs = 5000): Promise<RecordedCall> {
    const matches = (call: RecordedCall) => call.method === method && call.status === 200 && call.response?.ok === true && predicate(call.params);
    const found = this.calls.find(matches);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.events.off('call', listener);
        reject(new Error(`timed out waiting for ${method}; calls: ${this.calls.map((c) => c.method).join(', ')}`));
      }, timeoutMs);
      const listener = (call: RecordedCall) => {
        if (!matches(call)) return;
        clearTimeout(timer);
        this.events.off('call', listener);
        resolve(call);
      };
      this.events.on('call', listener);
    });
  }

  /** Resolves when `predicate` over the whole fake holds, checked after every call and response. */
  waitUntil(predicate: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.events.off('call', listener);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      const listener = () => {
        if (!predicate()) return;
        clearTimeout(timer);
        this.events.off('call', listener);
        resolve();
      };
      this.events.on('call', listener);
    });
  }

  /** Calls `listener` after every recorded call (Web API or response_url); returns an unsubscribe. */
  onCall(listener: (call: RecordedCall) => void): () => void {
    this.events.on('call', listener);
    return () => void this.events.off('call', listener);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', this.base);
    if (req.method === 'POST' && url.pathname.startsWith('/respond/')) {
      this.model.responses.push({ id: url.pathname.slice('/respond/'.length), body: safeObject(body) });
      this.record({ method: 'response_url', params: { body }, status: 200, response: { ok: true }, at: Date.now() });
      return send(res, 200, { ok: true });
    }
    if (!url.pathname.startsWith('/api/')) {
      if (this.options.extraRoutes?.(req, res, body)) return;
      return send(res, 404, { ok: false, error: 'unknown_path' });
    }
    const method = url.pathname.slice('/api/'.length);
    const params = parseParams(req.headers['content-type'], body, url);

    const script = this.scripts.find((s) => s.method === method && s.remaining > 0);
    if (script) {
      script.remaining -= 1;
      if (script.reply.kind === 'rate-limit') {
        this.record({ method, params, status: 429, response: undefined, at: Date.now() });
        res.writeHead(429, { 'retry-after': String(script.reply.retryAfterS), 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
      }
      return this.reply(res, method, params, fail(script.reply.error));
    }

    const token = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '') || params.token;
    if (method === 'apps.connections.open') return this.reply(res, method, params, this.openConnection(token));
    if (this.options.token && token !== this.options.token) return this.reply(res, method, params, fail(token ? 'invalid_auth' : 'not_authed'));
    const handler = this.handlers[method];
    return this.reply(res, method, params, handler ? handler(params, this.model, this.apiUrl) : fail('unknown_method'));
  }

  private openConnection(token: string | undefined): MethodResult {
    if (!this.socketMode) return fail('not_allowed_token_type');
    if (token !== this.socketMode.appToken) return fail(token ? 'invalid_auth' : 'not_authed');
    return { ok: true, url: this.socketMode.url() };
  }

  private reply(res: ServerResponse, method: string, params: Params, response: MethodResult): void {
    this.record({ method, params, status: 200, response, at: Date.now() });
    send(res, 200, response);
  }

  private record(call: RecordedCall): void {
    this.calls.push(call);
    this.events.emit('call', call);
  }
}

function parseParams(contentType: string | undefined, body: string, url: URL): Params {
  const params: Params = Object.fromEntries(url.searchParams);
  if ((contentType ?? '').includes('application/json')) {
    for (const [key, value] of Object.entries(safeObject(body))) params[key] = typeof value === 'string' ? value : JSON.stringify(value);
  } else {
    for (const [key, value] of new URLSearchParams(body)) params[key] = value;
  }
  return params;
}

function safeObject(body: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
