/**
 * A PostgreSQL server that cannot be reached when Tandem opens its store, told apart from a wrong password or a
 * missing database (which waiting does not mend). A command says so in one line naming DATABASE_URL; `tandem
 * start` waits for it (src/runtime/open-database.ts).
 */

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
