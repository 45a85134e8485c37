import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { PGlite } from '@electric-sql/pglite';
import { acquireDataDirLock } from './engine/data-dir-lock.ts';
import { checkDataDirWritable } from './engine/data-dir-check.ts';
import { observingPglite, observingPostgres } from './engine/observed-client.ts';
import { reopeningPglite } from './engine/pglite-reopen.ts';
import type { PgliteClient } from './engine/pglite-thread-client.ts';
import * as schema from './schema.ts';
import { StoreHealth, withStoreDeadline } from './engine/store-health.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  db: Db;
  engine: 'pglite' | 'postgres';
  /** Applies pending migrations; safe to call from several processes at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** Whether the store can be written, as its own statements show (for `/healthz` and `/metrics`). */
  health: StoreHealth;
  /** A cheap round trip (`select 1`); rejects when the store does not answer within `timeoutMs`. */
  ping(timeoutMs: number): Promise<void>;
}

// Found relative to this file, not the working directory, so `tandem` works from anywhere.
const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));
const INITDB_SCRIPT = fileURLToPath(new URL('./pglite-initdb.mjs', import.meta.url));
/**
 * The bot's tables are small: PostgreSQL's default 128 MB of shared buffers only costs memory here
 * (measured idle RSS on reopen: about 360 MB with the defaults, 250 MB with these).
 */
const PGLITE_MEMORY_PARAMS = [
  '-c',
  'shared_buffers=16MB',
  '-c',
  'wal_buffers=1MB',
  '-c',
  'temp_buffers=1MB',
  '-c',
  'work_mem=2MB',
  '-c',
  'maintenance_work_mem=8MB',
];
// Any fixed number shared by every replica; it only serialises concurrent migrations.
const MIGRATION_LOCK_KEY = 7_316_011;

/**
 * Seconds before a pool connection tries again after its server went away. postgres-js's own backoff
 * grows to 20 s after a minute of failures, so a database back after an outage would wait that long:
 * here it grows from 50 ms and stays under 2 s, with jitter so replicas do not reconnect in step.
 */
export const reconnectBackoffS = (retries: number): number => Math.min(0.05 * 2 ** retries, 2) * (0.5 + Math.random() / 2);

export type DatabaseOptions =
  | { url: string; poolSize?: number }
  | { dataDir: string }
  /**
   * In-memory PGlite, for tests. `from` is a data folder saved by PGlite's `dumpDataDir()` to start from instead of
   * running initdb (seconds of CPU): tests start each database from one migrated template.
   */
  | { memory: true; from?: Blob };

/**
 * `fetch_types` off: the client would otherwise look up array types as each new connection opens, and a reset during
 * that lookup rejects a promise nobody awaits, which ends the process (test/infra/new-connection-reset.test.ts). No
 * column or parameter of ours is a PostgreSQL array. (With it off, the client's `reserve()` never answers on a new
 * connection, so nothing here reserves one.)
 */
const POSTGRES_OPTIONS = { onnotice: () => {}, connect_timeout: 10, fetch_types: false } as const;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if ('url' in options) return openPostgres(options.url, poolSizeIn(options.url) ?? options.poolSize ?? 10);
  if ('dataDir' in options) {
    const dataDir = path.resolve(options.dataDir);
    checkDataDirWritable(dataDir, () => mkdirSync(dataDir, { recursive: true }));
    const lock = acquireDataDirLock(dataDir);
    try {
      return await openPglite(path.join(dataDir, 'pglite'), lock.release);
    } catch (error) {
      lock.release();
      throw error;
    }
  }
  return openPglite(undefined, () => {}, options.from);
}

/** First start: initdb runs in a child process, so its memory is returned to the system when it exits. */
async function initialisePgliteFolder(dataDir: string): Promise<void> {
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  await promisify(execFile)(process.execPath, [INITDB_SCRIPT, dataDir], { timeout: 120_000 });
}

// Each engine's client and drizzle driver load when it is opened: a process on PostgreSQL never loads PGlite, nor the reverse.
async function openPglite(dataDir: string | undefined, onClose: () => void, from?: Blob): Promise<Database> {
  const [{ PgliteThreadClient }, { drizzle: drizzlePglite }] = await Promise.all([import('./engine/pglite-thread-client.ts'), import('drizzle-orm/pglite')]);
  if (dataDir) await initialisePgliteFolder(dataDir);
  // PGlite runs in a thread of its own, so its statements do not hold the event loop (decision 049).
  const open = () => PgliteThreadClient.open({ dataDir, startParams: PGLITE_MEMORY_PARAMS, ...(from ? { loadDataDir: from } : {}) });
  const first = await open();
  const health = new StoreHealth();
  // A folder that refused writes leaves PGlite broken until it restarts: it is restarted once the folder takes writes again.
  const store: { client: PgliteClient; close(): Promise<void> } = dataDir
    ? reopeningPglite({ first, folder: dataDir, open, health })
    : { client: first, close: () => first.close() };
  // drizzle's PGlite driver calls only `query()` and `transaction()` (and `query()` on the transaction): the thread's client has both.
  const db = drizzlePglite(observingPglite(store.client, health) as unknown as PGlite, { schema });
  return {
    db,
    engine: 'pglite',
    health,
    ping: async (timeoutMs) => void (await withStoreDeadline(store.client.query('select 1'), timeoutMs, 'a health check')),
    // One process owns a PGlite folder (the lock file), so nothing competes here.
    migrate: async () => {
      // On this thread, through the store's thread, unprepared: drizzle's migrator loads only where the rest of drizzle is.
      const { migrate: migratePglite } = await import('drizzle-orm/pglite/migrator');
      await migratePglite(drizzlePglite(store.client.unprepared() as unknown as PGlite), { migrationsFolder: MIGRATIONS_FOLDER });
    },
    async close() {
      await store.close();
      onClose();
    },
  };
}

/**
 * `?max=N` in DATABASE_URL: how many connections this process keeps to the server (10 by default). Replicas on one
 * small server can each take fewer (docs/decisions/030-scale-and-time.md). Read here because postgres.js would read
 * it as text.
 */
function poolSizeIn(url: string): number | undefined {
  // The query alone: `new URL` refuses the comma-separated hosts postgres.js takes (`postgres://u@h1,h2/db`).
  const max = new URLSearchParams(url.split('?')[1]?.split('#')[0] ?? '').get('max');
  if (max === null) return undefined;
  if (!/^\d+$/.test(max) || Number(max) < 1 || Number(max) > 100) throw new Error(`DATABASE_URL: max=${max} is not a whole number from 1 to 100`);
  return Number(max);
}

async function openPostgres(url: string, poolSize: number): Promise<Database> {
  const [{ default: postgres }, { drizzle: drizzlePostgres }, { preparingClient }] = await Promise.all([
    import('postgres'),
    import('drizzle-orm/postgres-js'),
    import('./engine/prepared-client.ts'),
  ]);
  const client = postgres(url, { ...POSTGRES_OPTIONS, max: poolSize, backoff: reconnectBackoffS });
  const health = new StoreHealth();
  const db = drizzlePostgres(observingPostgres(preparingClient(client), health), { schema });
  return {
    db,
    engine: 'postgres',
    health,
    ping: async (timeoutMs) => void (await withStoreDeadline(Promise.resolve(db.execute(sql`select 1`)), timeoutMs, 'a health check')),
    async migrate() {
      // Replicas starting together would race on CREATE TABLE; the advisory lock lets one migrate at a time. It is
      // held by a session, so the migrations run on a client of one connection that takes it.
      const { migrate: migratePostgres } = await import('drizzle-orm/postgres-js/migrator');
      const session = postgres(url, { ...POSTGRES_OPTIONS, max: 1 });
      try {
        await session`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
        await migratePostgres(drizzlePostgres(session), { migrationsFolder: MIGRATIONS_FOLDER });
      } finally {
        await session`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => {});
        await session.end({ timeout: 5 });
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}
