/**
 * The main thread's side of PGlite's own thread (pglite-thread.mjs): what drizzle's PGlite driver and the
 * store's wrappers call (`query`, `exec`, `transaction`, `close`), each sent as a message and answered
 * when the thread has run it. The event loop is free meanwhile: PGlite's WebAssembly no longer holds it
 * (decision 049).
 *
 * A transaction holds the store as on one thread: its statements go to the thread under its id, and other
 * statements wait in the thread until it ends. Errors come back with PostgreSQL's fields (`code`, `detail`,
 * `constraint`…), so callers tell a unique key or a full disk apart as before. While anything is asked, the
 * thread keeps the process alive; idle, it does not (a command that opened the store still exits on its own).
 */
import { Worker } from 'node:worker_threads';
import type { QueryOptions, Results } from '@electric-sql/pglite';
import { storableParams } from '../../agent/text/storable-text.ts';

const THREAD_SCRIPT = new URL('./pglite-thread.mjs', import.meta.url);

export interface PgliteTransaction {
  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(text: string): Promise<Results[]>;
}

/** What drizzle's PGlite driver calls: `query` and `transaction` (and `query` on the transaction). */
export interface PgliteSession extends PgliteTransaction {
  transaction<T>(work: (tx: PgliteTransaction) => Promise<T>): Promise<T>;
}

export interface PgliteClient extends PgliteSession {
  /** The same store, its statements not prepared: for migrations, run once each (and DDL kept out of the prepared set). */
  unprepared(): PgliteSession;
  close(): Promise<void>;
  readonly closed: boolean;
}

export interface PgliteThreadOptions {
  /** PGlite's folder (holding PG_VERSION); none for an in-memory store. */
  dataDir?: string;
  /** Server settings added to PGlite's own. */
  startParams: string[];
  /** A data folder saved by `dumpDataDir()` to start an in-memory store from. */
  loadDataDir?: Blob;
}

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: Record<string, unknown> };
type Request =
  | { op: 'query'; text: string; params: unknown[]; rowMode: 'array' | 'object'; textTypes: number[]; tx?: number; unprepared?: true }
  | { op: 'exec'; text: string; tx?: number }
  | { op: 'begin'; unprepared?: true }
  | { op: 'end'; tx: number; commit: boolean }
  | { op: 'close' };

/** The thread's error as an Error of this thread, with PostgreSQL's fields (the stack is the caller's). */
function errorFrom(plain: Record<string, unknown>): Error {
  const error = new Error(String(plain.message));
  return Object.assign(error, plain);
}

/** The answer once the store is closed or its thread is gone: "PGlite is closed", which the store's health counts as unreachable. */
const closedError = (why?: string) => new Error(why ? `PGlite is closed: ${why}` : 'PGlite is closed');

/** Caller-given parsers run here on the text the thread left (drizzle's keep timestamps as written). */
function parsed<T>(result: Results<T>, parsers: QueryOptions['parsers']): Results<T> {
  if (!parsers) return result;
  const columns = result.fields.map((field, index) => ({ index, name: field.name, parse: parsers[field.dataTypeID] })).filter((column) => column.parse);
  if (columns.length === 0) return result;
  for (const row of result.rows as Record<string | number, unknown>[]) {
    for (const { index, name, parse } of columns) {
      const key = Array.isArray(row) ? index : name;
      if (typeof row[key] === 'string') row[key] = parse!(row[key]);
    }
  }
  return result;
}

export class PgliteThreadClient implements PgliteClient {
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private stopped: Error | undefined;
  private closing: Promise<void> | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: Reply) => {
      const waiter = this.waiting.get(reply.id);
      if (!waiter) return;
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      if (reply.ok) waiter.resolve(reply.value);
      else waiter.reject(errorFrom(reply.error));
    });
    worker.on('error', (error) => this.stop(closedError(`its thread failed (${error.message})`)));
    worker.on('exit', (code) => this.stop(closedError(`its thread stopped (exit code ${code})`)));
    worker.unref();
  }

  /** Starts the thread and opens PGlite there; rejects with PGlite's own error when it cannot open. */
  static async open(options: PgliteThreadOptions): Promise<PgliteThreadClient> {
    const worker = new Worker(THREAD_SCRIPT, { workerData: options, execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    const listeners: { message?: (opened: { error?: Record<string, unknown> }) => void; error?: (error: Error) => void; exit?: (code: number) => void } = {};
    try {
      const opened = await new Promise<{ error?: Record<string, unknown> }>((resolve, reject) => {
        worker.once('message', (listeners.message = resolve));
        worker.once('error', (listeners.error = reject));
        worker.once('exit', (listeners.exit = (code) => reject(new Error(`PGlite's thread stopped while opening (exit code ${code})`))));
      });
      if (opened.error) throw errorFrom(opened.error);
    } catch (error) {
      await worker.terminate();
      throw error;
    } finally {
      worker.off('message', listeners.message!).off('error', listeners.error!).off('exit', listeners.exit!);
    }
    return new PgliteThreadClient(worker);
  }

  get closed(): boolean {
    return this.stopped !== undefined || this.closing !== undefined;
  }

  query<T>(text: string, params: unknown[] = [], options?: QueryOptions, tx?: number, unprepared?: true): Promise<Results<T>> {
    const parsers = options?.parsers;
    const request = {
      op: 'query',
      text,
      params: storableParams(params) as unknown[],
      rowMode: options?.rowMode ?? 'object',
      textTypes: Object.keys(parsers ?? {}).map(Number),
      tx,
      unprepared,
    } as const;
    return this.ask<Results<T>>(request).then((result) => parsed(result, parsers));
  }

  exec(text: string, tx?: number): Promise<Results[]> {
    return this.ask<Results[]>({ op: 'exec', text, tx });
  }

  async transaction<T>(work: (tx: PgliteTransaction) => Promise<T>, unprepared?: true): Promise<T> {
    // The BEGIN's own id names the transaction: its statements are sent under it.
    const id = this.nextId;
    await this.ask({ op: 'begin', unprepared });
    const tx: PgliteTransaction = {
      query: (text, params, options) => this.query(text, params, options, id, unprepared),
      exec: (text) => this.exec(text, id),
    };
    let result: T;
    try {
      result = await work(tx);
    } catch (error) {
      await this.ask({ op: 'end', tx: id, commit: false }).catch(() => undefined);
      throw error;
    }
    await this.ask({ op: 'end', tx: id, commit: true });
    return result;
  }

  unprepared(): PgliteSession {
    return {
      query: (text, params, options) => this.query(text, params, options, undefined, true),
      exec: (text) => this.exec(text),
      transaction: (work) => this.transaction(work, true),
    };
  }

  /** Lets what was asked finish, closes PGlite in its thread (its last writes on disk), then ends the thread. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.stopped) return;
      await this.ask({ op: 'close' }, true).catch(() => undefined);
      this.stopped = closedError();
      await this.worker.terminate();
    })();
    return this.closing;
  }

  private ask<T>(request: Request, evenWhileClosing = false): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped);
    // A transaction open when closing began may finish: the thread closes PGlite after it.
    const ofOpenTransaction = 'tx' in request && request.tx !== undefined;
    if (this.closing && !evenWhileClosing && !ofOpenTransaction) return Promise.reject(closedError());
    const id = this.nextId++;
    if (this.waiting.size === 0) this.worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, ...request });
    });
  }

  /** The thread is gone: everything still asked fails as a closed store. */
  private stop(error: Error): void {
    this.stopped ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(this.stopped);
    this.waiting.clear();
  }
}
