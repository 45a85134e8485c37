import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { acquireDataDirLock } from './data-dir-lock.ts';
import * as schema from './schema.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  db: Db;
  engine: 'pglite' | 'postgres';
  /** Applies pending migrations; safe to call from several processes at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

// Found relative to this file, not the working directory, so `tandem` works from anywhere.
const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));
// Any fixed number shared by every replica; it only serialises concurrent migrations.
const MIGRATION_LOCK_KEY = 7_316_011;

export type DatabaseOptions =
  | { url: string; poolSize?: number }
  | { dataDir: string }
  /** In-memory PGlite, for tests. */
  | { memory: true };

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if ('url' in options) return openPostgres(options.url, options.poolSize ?? 10);
  if ('dataDir' in options) {
    const dataDir = path.resolve(options.dataDir);
    mkdirSync(dataDir, { recursive: true });
    const lock = acquireDataDirLock(dataDir);
    try {
      return await openPglite(path.join(dataDir, 'pglite'), lock.release);
    } catch (error) {
      lock.release();
      throw error;
    }
  }
  return openPglite(undefined, () => {});
}

async function openPglite(dataDir: string | undefined, onClose: () => void): Promise<Database> {
  const client = dataDir ? await PGlite.create(dataDir) : await PGlite.create();
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    engine: 'pglite',
    // One process owns a PGlite folder (the lock file), so nothing competes here.
    migrate: () => migratePglite(drizzlePglite(client), { migrationsFolder: MIGRATIONS_FOLDER }),
    async close() {
      await client.close();
      onClose();
    },
  };
}

async function openPostgres(url: string, poolSize: number): Promise<Database> {
  const client = postgres(url, { max: poolSize, onnotice: () => {}, connect_timeout: 10 });
  const db = drizzlePostgres(client, { schema }) as unknown as Db;
  return {
    db,
    engine: 'postgres',
    async migrate() {
      // Replicas starting together would race on CREATE TABLE; the advisory lock lets one migrate at a time.
      const lockConnection = await client.reserve();
      try {
        await lockConnection`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
        await migratePostgres(drizzlePostgres(client), { migrationsFolder: MIGRATIONS_FOLDER });
      } finally {
        await lockConnection`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => {});
        lockConnection.release();
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}
