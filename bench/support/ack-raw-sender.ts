/**
 * Slack's side of the ack bench, as cheap as a load generator: each request goes out as bytes built before its
 * clock starts, over a kept-alive TCP socket, and its response is read by finding the end of its headers.
 *
 * Why not `node:http`'s client: a burst cost that client 16-100 ms of CPU here (a `ClientRequest`, its agent's
 * queue and an HTTP parser a request), as much as the bot's own main thread, on the same 2 cores; and it wrote
 * the burst out one request after another for 6-120 ms, with the first responses unread meanwhile (decision 030,
 * session 19). Slack sends from many machines. BENCH_CLIENT=http keeps the old sender.
 */
import { connect, type Socket } from 'node:net';
import type { PreparedRequest, SenderShape, Sent } from './presigned-sender.ts';

interface Waiting {
  calledAt: number;
  writtenAt: number;
  resolve(sent: Sent): void;
  reject(error: Error): void;
}

/** A socket the sender keeps: what it read so far and the request waiting for its response. */
interface Kept {
  socket: Socket;
  read: string;
  waiting: Waiting | undefined;
}

/** Closed before the bot's server closes an idle socket (Node's keep-alive timeout, 5 s): see presigned-sender.ts. */
const IDLE_MS = 4_000;

export function rawSender(url: string): {
  /** Builds a request's bytes ahead of its send (Slack builds its requests before sending them too). */
  ready(prepared: PreparedRequest): void;
  send(prepared: PreparedRequest): Promise<Sent>;
  shape(): SenderShape;
  close(): void;
} {
  const target = new URL(url);
  const free: Kept[] = [];
  const all = new Set<Kept>();
  let written: number[] = [];
  let opened = 0;

  const open = (): Kept => {
    const kept: Kept = { socket: connect({ host: target.hostname, port: Number(target.port) }), read: '', waiting: undefined };
    all.add(kept);
    kept.socket.setNoDelay(true);
    kept.socket.once('connect', () => {
      opened += 1;
      // Its request was written once the connection was made: its clock starts there.
      if (kept.waiting) written.push((kept.waiting.writtenAt = performance.now()));
    });
    kept.socket.setEncoding('latin1');
    kept.socket.on('data', (chunk: string) => received(kept, chunk));
    kept.socket.on('timeout', () => kept.socket.destroy());
    kept.socket.on('error', () => undefined);
    kept.socket.on('close', () => {
      all.delete(kept);
      const index = free.indexOf(kept);
      if (index >= 0) free.splice(index, 1);
      kept.waiting?.reject(new Error('the bot closed a connection with a request on it'));
      kept.waiting = undefined;
    });
    return kept;
  };

  const received = (kept: Kept, chunk: string) => {
    kept.read += chunk;
    const response = complete(kept.read);
    if (!response || !kept.waiting) return;
    const waiting = kept.waiting;
    kept.waiting = undefined;
    kept.read = kept.read.slice(response.length);
    if (response.close) kept.socket.destroy();
    else {
      kept.socket.setTimeout(IDLE_MS);
      free.push(kept);
    }
    waiting.resolve({ status: response.status, calledAt: waiting.calledAt, writtenAt: waiting.writtenAt, endedAt: performance.now() });
  };

  const built = new WeakMap<PreparedRequest, Buffer>();
  const ready = (prepared: PreparedRequest): Buffer => {
    const head = Object.entries(prepared.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const bytes = Buffer.from(`POST ${target.pathname} HTTP/1.1\r\nhost: ${target.host}\r\nconnection: keep-alive\r\n${head}\r\n${prepared.body}`);
    built.set(prepared, bytes);
    return bytes;
  };

  return {
    ready: (prepared) => void ready(prepared),
    send: (prepared) => {
      const bytes = built.get(prepared) ?? ready(prepared);
      return new Promise<Sent>((resolve, reject) => {
        const calledAt = performance.now();
        const kept = free.pop() ?? open();
        kept.socket.setTimeout(0);
        kept.waiting = { calledAt, writtenAt: Number.NaN, resolve, reject };
        kept.socket.write(bytes);
        // On a connected socket the bytes are in the kernel once write returns (Node writes at once when it can).
        if (!kept.socket.connecting) written.push((kept.waiting.writtenAt = performance.now()));
      });
    },
    shape() {
      const shape = { sends: written.length, newSockets: opened, writeSpreadMs: written.length ? Math.max(...written) - Math.min(...written) : 0 };
      written = [];
      opened = 0;
      return shape;
    },
    close: () => {
      for (const kept of all) kept.socket.destroy();
    },
  };
}

/** The first whole response in what was read: its status, its length in characters, whether the server closes. */
function complete(read: string): { status: number; length: number; close: boolean } | undefined {
  const headEnd = read.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const head = read.slice(0, headEnd).toLowerCase();
  const status = Number(head.slice(9, 12));
  const close = /\r\nconnection: *close/.test(head);
  const bodyFrom = headEnd + 4;
  if (/\r\ntransfer-encoding: *chunked/.test(head)) {
    // The acks carry no body or a short one: the last chunk ends the response.
    const end = read.indexOf('0\r\n\r\n', bodyFrom);
    return end < 0 ? undefined : { status, length: end + 5, close };
  }
  const length = Number(/\r\ncontent-length: *(\d+)/.exec(head)?.[1] ?? 0);
  return read.length < bodyFrom + length ? undefined : { status, length: bodyFrom + length, close };
}
