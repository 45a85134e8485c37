import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { agentMethods } from './agent-methods.ts';
import { chatMethods } from './chat-methods.ts';
import { directoryMethods } from './directory-methods.ts';
import { parseParams, readBody, refuse, safeObject, send } from './http-io.ts';
import { fail, type MethodResult, type Params } from './params.ts';
import { Hang, type HangEffect } from './hang.ts';
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
 * script 429s (with Retry-After), errors, slowness or a Slack that stops answering (`hang`).
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
  private down: { status: number } | { error: string } | undefined;
  private hung: Hang | undefined;

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
    await once(this.server.listen(port, '127.0.0.1'), 'listening'); // rejects on 'error': a taken port fails the start, whose caller names PORT
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.hung?.cancel();
    this.hung = undefined;
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

  /**
   * Slack is down for every Web API method until called again without an answer: each call gets this
   * HTTP status, or `{ok:false, error}` (as `service_unavailable`), and changes nothing.
   */
  outage(answer?: { status: number } | { error: string }): void {
    this.down = answer;
  }

  /** Slack stops answering: every call is held, connection open, until `release()` or `forMs`; `effect` says when it acts (hang.ts). */
  hang(options: { effect?: HangEffect; forMs?: number } = {}): void {
    this.release();
    this.hung = new Hang(options.effect ?? 'at-once', options.forMs, () => this.release());
  }

  /** Slack answers again: every held call is finished in the order it came (a client that gave up gets nothing), then calls flow as usual. */
  release(): void {
    const hang = this.hung;
    this.hung = undefined;
    hang?.finish();
  }

  /** How many calls the current hang holds unanswered (0 when Slack is not hanging). */
  get heldCalls(): number {
    return this.hung?.size ?? 0;
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
    return this.until(
      (call) => (call ? (matches(call) ? call : undefined) : this.calls.find(matches)),
      timeoutMs,
      () => `timed out waiting for ${method}; calls: ${this.calls.map((c) => c.method).join(', ')}`,
    );
  }

  /** Resolves when `predicate` over the whole fake holds, checked after every call and response. */
  async waitUntil(predicate: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    await this.until(
      () => predicate() || undefined,
      timeoutMs,
      () => `timed out waiting for ${what}`,
    );
  }

  /** The first answer `check` gives, asked now (no call) and after every recorded call; rejects after `timeoutMs`. */
  private until<T>(check: (call: RecordedCall | undefined) => T | undefined, timeoutMs: number, timedOut: () => string): Promise<T> {
    const now = check(undefined);
    if (now !== undefined) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.events.off('call', listener);
        reject(new Error(timedOut()));
      }, timeoutMs);
      const listener = (call: RecordedCall) => {
        const answer = check(call);
        if (answer === undefined) return;
        clearTimeout(timer);
        this.events.off('call', listener);
        resolve(answer);
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
    if (this.hung)
      return this.hung.hold({
        act: () => this.act(req, method, params),
        record: (response) => this.record({ method, params, status: 200, response, at: Date.now() }),
        answer: (response) => !res.destroyed && send(res, 200, response), // a client that gave up hears nothing
        drop: () => res.destroy(),
      });

    if (this.down && 'status' in this.down) {
      this.record({ method, params, status: this.down.status, response: undefined, at: Date.now() });
      res.writeHead(this.down.status, { 'content-type': 'text/html' });
      return void res.end('<html>Slack is down</html>');
    }
    if (this.down) return this.reply(res, method, params, fail(this.down.error));
    const script = this.scripts.find((s) => s.method === method && s.remaining > 0);
    if (script) script.remaining -= 1;
    const reply = script?.reply;
    if (reply?.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, reply.ms));
    if (reply?.kind === 'rate-limit') {
      this.record({ method, params, status: 429, response: undefined, at: Date.now() });
      res.writeHead(429, { 'retry-after': String(reply.retryAfterS), 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
    }
    if (reply?.kind === 'error') return this.reply(res, method, params, fail(reply.error));

    return this.reply(res, method, params, this.act(req, method, params));
  }

  /** What the Web API does with a call: checks its token and runs its method on the workspace model. */
  private act(req: IncomingMessage, method: string, params: Params): MethodResult {
    const token = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '') || params.token;
    if (method === 'apps.connections.open') return this.openConnection(token);
    if (this.options.token && token !== this.options.token) return fail(token ? 'invalid_auth' : 'not_authed');
    const handler = this.handlers[method];
    return handler ? handler(params, this.model, this.apiUrl) : fail('unknown_method');
  }

  private openConnection(token: string | undefined): MethodResult {
    if (!this.socketMode) return fail('not_allowed_token_type');
    if (token !== this.socketMode.appToken) return fail(token ? 'invalid_auth' : 'not_authed');
    return { ok: true, url: this.socketMode.url() };
  }

  private reply(res: ServerResponse, method: string, params: Params, response: MethodResult): void {
    this.record({ method, params, status: 200, response, at: Date.now() });
    // A client that gave up (its timeout) closed the connection: Slack acted, nobody hears the answer.
    if (!res.destroyed) send(res, 200, response);
  }

  private record(call: RecordedCall): void {
    this.calls.push(call);
    // Trimmed in batches so each call stays cheap: between the limit and twice it are kept.
    const limit = this.options.maxRecordedCalls ?? 10_000;
    if (this.calls.length > 2 * limit) this.calls.splice(0, this.calls.length - limit);
    this.events.emit('call', call);
  }
}
