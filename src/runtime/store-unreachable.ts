/**
 * A PostgreSQL server that cannot be reached when Tandem opens its store. A command says so in one line naming
 * DATABASE_URL; `tandem start` waits for it (CONTRACT §6: while the store cannot be written, Slack is answered
 * with a 5xx so it retries, and `/healthz` answers 503), since a server that is starting or restarting is
 * expected to come back. A wrong password or a missing database is not waited for: waiting does not mend it.
 */
import { createServer, type Server } from 'node:http';
import type { Logger } from '../observability/logger.ts';

/** Errors of the connection itself (node's and postgres.js's codes) and PostgreSQL's "not now" states. */
const PASSING_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  // cannot_connect_now (starting up, shutting down), admin_shutdown, crash_shutdown, connection failures.
  '57P03',
  '57P01',
  '57P02',
  '08001',
  '08006',
]);

export class StoreUnreachableError extends Error {
  override readonly name = 'StoreUnreachableError';
  constructor(
    readonly where: string,
    readonly reason: string,
  ) {
    super(`the database at DATABASE_URL (${where}) cannot be reached: ${reason}`);
  }
}

/** The error's code when it is one a server coming (back) up gives, else undefined. */
export function passingCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && PASSING_CODES.has(code)) return code;
  // AggregateError: every address of the host refused (localhost's ::1 and 127.0.0.1).
  const inner = (error as { errors?: unknown[] } | null)?.errors;
  return Array.isArray(inner) ? inner.map(passingCode).find(Boolean) : undefined;
}

/** host:port/database of a postgres URL: what a person needs to find the server, never its password. */
export function databaseWhere(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'an address that does not parse';
  }
}

/** Waits between tries: 1 s, doubling to 15 s. */
export const retryDelayMs = (attempt: number) => Math.min(15_000, 1_000 * 2 ** Math.min(attempt - 1, 4));

/**
 * While the store is being waited for, something must answer on the bot's port: Slack's requests get 503 (so Slack
 * tries them again) and `/healthz` says why. Closed before the bot's own server takes the port.
 */
export function holdingServer(port: number, host: string | undefined, logger: Logger): { close(): Promise<void> } {
  const server: Server = createServer((req, res) => {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '5' });
    res.end(JSON.stringify({ ok: false, store: 'unreachable' }));
    req.resume();
  });
  server.on('error', (error) => logger.warn({ err: error }, 'the port could not be held while the store is waited for'));
  server.listen(port, host);
  return { close: () => new Promise((resolve) => server.close(() => resolve())) };
}
