/**
 * Whether the store can be written now, as its own traffic shows: every statement's failure or success
 * is reported here by the driver wrappers (observed-client.ts). `/healthz` reads it, and `/metrics`
 * counts the failures. Only failures of the store itself count (it is unreachable, restarting, full or
 * read-only); a statement's own error (a unique key, a bad value) says nothing about the store.
 */

/** `unreachable`: no connection (down, restarting, cut); `not-writable`: connected but writes fail (disk full, read-only). */
export type StoreFailureKind = 'unreachable' | 'not-writable';

// SQLSTATE classes and codes that are the store's, not the statement's.
const UNREACHABLE_STATES = [/^08/, /^57P0[1-3]$/, /^57014$/];
const NOT_WRITABLE_STATES = [/^53/, /^58/, /^25006$/, /^XX/];
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'STORE_TIMEOUT',
]);
const NOT_WRITABLE_CODES = new Set(['ENOSPC', 'EROFS', 'EIO', 'EACCES', 'EPERM', 'EDQUOT']);

/** What kind of store failure the error (or an error it wraps, as drizzle wraps the driver's) is; undefined for a statement's own error. */
export function storeFailureKind(error: unknown): StoreFailureKind | undefined {
  return storeFailure(error)?.kind;
}

/** The kind, and the driver's own error that says so (drizzle's wrapper carries the statement and its parameters: never shown). */
function storeFailure(error: unknown): { kind: StoreFailureKind; source: object } | undefined {
  for (let e: unknown = error, depth = 0; e !== null && typeof e === 'object' && depth < 8; e = 'cause' in e ? e.cause : undefined, depth++) {
    const code = 'code' in e && typeof e.code === 'string' ? e.code : undefined;
    if (code && (UNREACHABLE_CODES.has(code) || (code.length === 5 && UNREACHABLE_STATES.some((state) => state.test(code)))))
      return { kind: 'unreachable', source: e };
    if (code && (NOT_WRITABLE_CODES.has(code) || (code.length === 5 && NOT_WRITABLE_STATES.some((state) => state.test(code)))))
      return { kind: 'not-writable', source: e };
    // PGlite closed under us (its folder vanished, the WebAssembly instance aborted), or its file system refused a write.
    if (e instanceof Error && /PGlite is closed|could not (write|extend|create|open) (to )?file|No space left|read-only file system/i.test(e.message)) {
      return { kind: /PGlite is closed/i.test(e.message) ? 'unreachable' : 'not-writable', source: e };
    }
  }
  return undefined;
}

/** An operation on the store that took longer than its deadline: counted as the store being unreachable. */
export class StoreTimeoutError extends Error {
  override readonly name = 'StoreTimeoutError';
  readonly code = 'STORE_TIMEOUT';
  constructor(what: string, ms: number) {
    super(`the store did not answer ${what} within ${ms} ms`);
  }
}

/** Rejects with a StoreTimeoutError when `work` takes longer than `ms`; the work itself goes on (a statement cannot be called back). */
export function withStoreDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(what, ms)), ms);
    timer.unref?.();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export interface StoreFailure {
  kind: StoreFailureKind;
  message: string;
  at: number;
}

export interface StoreHealthSnapshot {
  ok: boolean;
  /** Why not, for a person reading `/healthz`: the kind of failure and the driver's message (no secrets: no URL or parameters). */
  reason?: string;
}

export class StoreHealth {
  private failure: StoreFailure | undefined;
  /**
   * Whether a write that works clears a `not-writable` failure. PGlite in a folder sets it false: a folder
   * that refused some writes may take others (files PGlite holds open) while PGlite is broken, so only its
   * restart once the folder takes writes again (pglite-reopen.ts) clears it, through `recovered()`.
   */
  writesClearNotWritable = true;
  private readonly listeners = new Set<(kind: StoreFailureKind) => void>();

  constructor(
    /** How long a failure seen in traffic counts when nothing since showed the store working again. */
    private readonly windowMs = 15_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** A statement failed; counted only when the store itself is at fault. */
  failed(error: unknown): void {
    const found = storeFailure(error);
    if (!found) return;
    this.failure = { kind: found.kind, message: shortMessage(found.source), at: this.now() };
    for (const listener of this.listeners) listener(found.kind);
  }

  /** A statement succeeded: any answer shows the store reachable again; only a write shows it writable. */
  succeeded(write: boolean): void {
    if (!this.failure) return;
    if (this.failure.kind === 'unreachable' || (write && this.writesClearNotWritable)) this.failure = undefined;
  }

  /** The store was restarted after its folder took writes again: whatever failed before no longer counts. */
  recovered(): void {
    this.failure = undefined;
  }

  /** Called for every store failure (for `/metrics`); returns the unsubscribe function. */
  onFailure(listener: (kind: StoreFailureKind) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The last failure, while it still counts (one that only a restart clears counts until then). */
  get lastFailure(): StoreFailure | undefined {
    const untilRecovered = this.failure?.kind === 'not-writable' && !this.writesClearNotWritable;
    if (this.failure && !untilRecovered && this.now() - this.failure.at > this.windowMs) this.failure = undefined;
    return this.failure;
  }

  snapshot(): StoreHealthSnapshot {
    const failure = this.lastFailure;
    if (!failure) return { ok: true };
    const what = failure.kind === 'unreachable' ? 'the database is unreachable' : 'the database cannot be written';
    return { ok: false, reason: `${what}: ${failure.message}` };
  }
}

/** The driver's own words, one line, without anything after a newline (a query's text, a detail). */
function shortMessage(error: object): string {
  const message = error instanceof Error ? error.message : 'unknown error';
  const code = 'code' in error && typeof error.code === 'string' && !message.includes(error.code) ? ` (${error.code})` : '';
  return `${message.split('\n')[0]!.slice(0, 200)}${code}`;
}
