import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { DriverResponse, EnvelopeType, SendOptions, SlackTransport } from '../../src/workspace/slack-fake/index.ts';

export interface Ack {
  envelopeId: string;
  type: EnvelopeType;
  /** What the app put in its ack (`payload`), e.g. a slash command's immediate reply. */
  payload: Record<string, unknown>;
  /** Milliseconds from sending the envelope to receiving its ack. */
  elapsedMs: number;
}

interface Pending {
  type: EnvelopeType;
  sentAt: number;
  resolve: (ack: Ack) => void;
}

/**
 * Slack's side of Socket Mode on 127.0.0.1, with the same WebSocket library the SDK's peers use: the
 * fake Web API's `apps.connections.open` hands out `url`; each connection gets `hello`; envelopes of
 * events, interactivity and slash commands go to the newest open connection and are acknowledged by
 * `envelope_id`. `disconnect()` asks the app to reconnect, as Slack does when it recycles a host;
 * `drop()` cuts the connection without a word.
 */
export class FakeSocketModeServer implements SlackTransport {
  readonly acks: Ack[] = [];
  /** Every connection ever opened, in order; the last open one carries envelopes. */
  readonly connections: WebSocket[] = [];
  private readonly pending = new Map<string, Pending>();
  private server: WebSocketServer | undefined;
  private port = 0;

  async start(): Promise<this> {
    this.server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => this.server!.once('listening', () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
    this.server.on('connection', (socket) => this.accept(socket));
    return this;
  }

  /** A fresh URL per `apps.connections.open`, as Slack gives (the ticket only labels the connection here). */
  url(): string {
    return `ws://127.0.0.1:${this.port}/link/?ticket=${randomUUID()}&app_id=A1`;
  }

  get openConnections(): number {
    return this.connections.filter((socket) => socket.readyState === socket.OPEN).length;
  }

  /** Resolves once `count` connections have been opened in total (the first is 1). */
  waitForConnections(count: number, timeoutMs = 15_000): Promise<void> {
    return this.waitFor(() => this.connections.length >= count && this.live() !== undefined, timeoutMs, `${count} connection(s)`);
  }

  /** Slack's polite goodbye: the app should connect again through apps.connections.open. */
  disconnect(reason = 'refresh_requested'): void {
    this.live()?.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake-socket-mode' } }));
  }

  /** The connection dies without a close frame (a network cut, a crashed host). */
  drop(): void {
    this.live()?.terminate();
  }

  /**
   * Sends one envelope and resolves with its ack; an ack that does not come in `timeoutMs` resolves
   * with status 0 so a test can say what a person would notice (Slack would redeliver). Like Slack,
   * it holds the envelope while no connection is open (up to 15 s).
   */
  async deliver(
    type: EnvelopeType,
    payload: Record<string, unknown>,
    options: SendOptions & { envelopeId?: string; timeoutMs?: number } = {},
  ): Promise<DriverResponse> {
    await this.waitFor(() => this.live() !== undefined, 15_000, 'an open connection to deliver to');
    const socket = this.live()!;
    const envelopeId = options.envelopeId ?? randomUUID();
    const envelope = {
      envelope_id: envelopeId,
      type,
      payload,
      accepts_response_payload: type !== 'events_api',
      ...(type === 'events_api' ? { retry_attempt: options.retryNum ?? 0, retry_reason: options.retryNum ? 'timeout' : '' } : {}),
    };
    const acked = new Promise<Ack>((resolve) => this.pending.set(envelopeId, { type, sentAt: Date.now(), resolve }));
    socket.send(JSON.stringify(envelope));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), options.timeoutMs ?? 5000)));
    const ack = await Promise.race([acked, timedOut]);
    clearTimeout(timer);
    if (!ack) {
      this.pending.delete(envelopeId);
      return { status: 0, body: { error: `no ack for envelope ${envelopeId}` } };
    }
    return { status: 200, body: ack.payload };
  }

  async stop(): Promise<void> {
    for (const socket of this.connections) socket.terminate();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private live(): WebSocket | undefined {
    return [...this.connections].reverse().find((socket) => socket.readyState === socket.OPEN);
  }

  private accept(socket: WebSocket): void {
    this.connections.push(socket);
    socket.on('message', (data) => this.onMessage(String(data)));
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.openConnections,
        debug_info: { host: 'fake-socket-mode', approximate_connection_time: 18060 },
        connection_info: { app_id: 'A1' },
      }),
    );
  }

  private onMessage(text: string): void {
    let message: { envelope_id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    const envelopeId = typeof message.envelope_id === 'string' ? message.envelope_id : undefined;
    const pending = envelopeId ? this.pending.get(envelopeId) : undefined;
    if (!envelopeId || !pending) return;
    this.pending.delete(envelopeId);
    const payload = message.payload && typeof message.payload === 'object' ? (message.payload as Record<string, unknown>) : {};
    const ack: Ack = { envelopeId, type: pending.type, payload, elapsedMs: Date.now() - pending.sentAt };
    this.acks.push(ack);
    pending.resolve(ack);
  }

  private waitFor(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!predicate()) return;
        clearInterval(poll);
        clearTimeout(timer);
        resolve();
      };
      const poll = setInterval(check, 20);
      const timer = setTimeout(() => {
        clearInterval(poll);
        reject(new Error(`timed out waiting for ${what}; connections so far: ${this.connections.length}`));
      }, timeoutMs);
    });
  }
}
