/**
 * PGlite restarted in the process after its folder refused writes (full, read-only, permissions taken
 * away) and takes them again. PostgreSQL caches what it learnt from a failed file operation: a relation
 * fork it could not open is taken for missing, and once the folder is writable again every write to that
 * relation fails with "could not create file …: File exists" until the session ends. PGlite is one
 * session for the life of the process, so without a restart the bot would stay broken after the disk came
 * back. A real PostgreSQL restarts its backends after such failures; this does the same for PGlite: while
 * the store reports a `not-writable` failure, the folder is probed each second, and once a probe write
 * succeeds the instance is closed and opened again (PostgreSQL's crash recovery replays its WAL).
 * Statements that arrive meanwhile wait for the new instance; in-flight ones finish first. An instance is
 * PGlite in a thread of its own (pglite-thread-client.ts): closing it ends the thread, and a new one starts.
 */
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { PgliteClient } from './pglite-thread-client.ts';
import type { StoreHealth } from './store-health.ts';

const PROBE_EVERY_MS = 1_000;
/** A statement that never ends (a store that hangs) must not hold the restart forever. */
const DRAIN_AT_MOST_MS = 5_000;
const CLOSE_AT_MOST_MS = 10_000;

export interface ReopeningPglite {
  /** Always the current instance; statements wait while it is being replaced. */
  client: PgliteClient;
  /** Instances opened after the first (for tests and logs). */
  readonly reopened: number;
  close(): Promise<void>;
}

/** Whether a small file can be written and synced in the folder now. */
function folderTakesWrites(folder: string): boolean {
  const probe = path.join(folder, `.write-probe-${process.pid}`);
  try {
    const fd = openSync(probe, 'w');
    try {
      writeSync(fd, Buffer.alloc(8192, 0x2e));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { force: true });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref?.());

function before<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([work, sleep(ms).then(() => undefined)]);
}

export function reopeningPglite(options: {
  first: PgliteClient;
  /** PGlite's own folder (the one holding PG_VERSION): probed, then opened again. */
  folder: string;
  open: () => Promise<PgliteClient>;
  health: StoreHealth;
  onReopen?: (outcome: { ok: true } | { ok: false; error: unknown }) => void;
}): ReopeningPglite {
  let current = options.first;
  let gate: Promise<void> | undefined;
  let inFlight = 0;
  let watching = false;
  let closed = false;
  let reopened = 0;

  const replace = async (): Promise<void> => {
    let release!: () => void;
    gate = new Promise<void>((resolve) => (release = resolve));
    try {
      for (const deadline = Date.now() + DRAIN_AT_MOST_MS; inFlight > 0 && Date.now() < deadline;) await sleep(20);
      await before(
        current.close().catch(() => undefined),
        CLOSE_AT_MOST_MS,
      );
      try {
        current = await options.open();
        reopened += 1;
        options.health.recovered();
        options.onReopen?.({ ok: true });
      } catch (error) {
        // The old instance is closed: statements now fail as "PGlite is closed" (unreachable) until the next try.
        options.onReopen?.({ ok: false, error });
        throw error;
      }
    } finally {
      gate = undefined;
      release();
    }
  };

  const watch = async (): Promise<void> => {
    if (watching) return;
    watching = true;
    try {
      for (;;) {
        await sleep(PROBE_EVERY_MS);
        if (closed) return;
        if (!folderTakesWrites(options.folder)) continue;
        if (
          await replace().then(
            () => true,
            () => false,
          )
        )
          return;
      }
    } finally {
      watching = false;
    }
  };

  options.health.writesClearNotWritable = false;
  options.health.onFailure((kind) => {
    if (kind === 'not-writable' && !closed) void watch();
  });

  const forwarded =
    (property: 'query' | 'exec' | 'transaction') =>
    async (...args: unknown[]) => {
      while (gate) await gate;
      inFlight += 1;
      try {
        const method = Reflect.get(current, property, current) as (...a: unknown[]) => Promise<unknown>;
        return await method.apply(current, args);
      } finally {
        inFlight -= 1;
      }
    };
  const methods = { query: forwarded('query'), exec: forwarded('exec'), transaction: forwarded('transaction') };

  const client = new Proxy(options.first, {
    get(_target, property) {
      if (property === 'query' || property === 'exec' || property === 'transaction') return methods[property];
      const value = Reflect.get(current, property, current) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(current) : value;
    },
  });

  return {
    client,
    get reopened() {
      return reopened;
    },
    async close() {
      closed = true;
      while (gate) await gate;
      await current.close();
    },
  };
}
