import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { agentMethods } from './agent-methods.ts';
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

/** Checked before a request's body is read or any route runs: a refusal answers with its status and reason. */
export type RequestGuard = (req: IncomingMessage, url: URL) => { status: number; error: string } | undefined;

export interface SlackFakeOptions {
  token?: string;
  extraRoutes?: ExtraRoutes;
  guard?: RequestGuard;
  /** Bodies over this many bytes get 413 (default 1 MB, well over Slack's largest payloads). */
  maxBodyBytes?: number;
  /** Only the newest this many calls are kept (default 10,000), so a long-running workspace does not grow forever. */
  maxRecordedCalls?: number;
}

/** Slack keeps a response_url for 30 minutes. */
const RESPONSE_URL_TTL_MS = 30 * 60_000;

interface Script {
  method: string;
  remaining: number;
  reply: { kind: 'rate-limit'; retryAfterS: number } | { kind: 'error'; error: string } | { kind: 'slow'; ms: number };
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
  /** The response_urls handed to the bot, by id, with when they were issued; nothing else is accepted at /respond/. */
  private readonly issuedResponses = new Map<string, number>();
  private server: Server | undefined;
  private base = '';
  private socketMode: { appToken: string; url: () => string } | undefined;

  constructor(private readonly options: SlackFakeOptions = {}) {
    this.handlers = { ...chatMethods, ...directoryMethods, ...agentMethods, ...createViewMethods(this.triggers) };
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

  /** The next `times` calls of `method` are answered (as usual) only after `ms`: a slow Slack, while other calls go through. */
  slow(method: string, times: number, ms: number): void {
    this.scripts.push({ method, remaining: times, reply: { kind: 'slow', ms } });
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
    const now = Date.now();
    for (const [id, at] of this.issuedResponses) {
      if (now - at <= RESPONSE_URL_TTL_MS) break;
      this.issuedResponses.delete(id);
    }
    const id = randomUUID();
    this.issuedResponses.set(id, now);
    return `${this.base}/respond/${id}`;
  }

  /** Whether `id` names a response_url handed out and not yet expired. */
  isIssuedResponse(id: string): boolean {
    const issuedAt = this.issuedResponses.get(id);
    return issuedAt !== undefined && Date.now() - issuedAt <= RESPONSE_URL_TTL_MS;
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
    const url = new URL(req.url ?? '/', this.base);
    const refusal = this.options.guard?.(req, url);
    if (refusal) return refuse(req, res, refusal.status, refusal.error);
    const read = await readBody(req, this.options.maxBodyBytes ?? 1_000_000);
    if (!read.ok) return refuse(req, res, 413, `The request body is over ${read.limit} bytes.`);
    const body = read.body;
    if (req.method === 'POST' && url.pathname.startsWith('/respond/')) {
      const id = url.pathname.slice('/respond/'.length);
      if (!this.isIssuedResponse(id)) return send(res, 404, { ok: false, error: 'expired_url' });
      this.model.responses.push({ id, body: safeObject(body) });
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
    if (script?.reply.kind === 'slow') {
      script.remaining -= 1;
      await new Promise((resolve) => setTimeout(resolve, (script.reply as { ms: number }).ms));
    } else if (script) {
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
    // Trimmed in batches so each call stays cheap: between the limit and twice it are kept.
    const limit = this.options.maxRecordedCalls ?? 10_000;
    if (this.calls.length > 2 * limit) this.calls.splice(0, this.calls.length - limit);
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

type ReadBody = { ok: true; body: string } | { ok: false; limit: number };

/** Reads at most `limit` bytes: a larger declared length is refused unread, a larger stream is cut off. */
function readBody(req: IncomingMessage, limit: number): Promise<ReadBody> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.resolve({ ok: false, limit });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        resolve({ ok: false, limit });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve({ ok: true, body: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', reject);
  });
}

/** A refusal sent before the body was read: the connection is closed after it so the rest is never read. */
function refuse(req: IncomingMessage, res: ServerResponse, status: number, error: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', connection: 'close' });
  res.end(JSON.stringify({ ok: false, error }));
  req.resume();
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
