import { createHash, randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import postgres from 'postgres';
import { openDatabase, type Database } from '../../src/store/index.ts';

export type Engine = 'pglite' | 'postgres';

/** PGlite always; PostgreSQL too when CI (or you) sets TEST_DATABASE_URL. */
export const ENGINES: Engine[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

/** The engine for tests that are not about the store: PostgreSQL when available (cheaper), else PGlite. */
export const DEFAULT_ENGINE: Engine = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';

export interface TestDatabase extends Database {
  /** A postgres:// URL for this database (PostgreSQL only), e.g. to open a second connection pool. */
  url: string | undefined;
  destroy(): Promise<void>;
}

/**
 * A migrated, empty database of its own: in-memory PGlite, or a fresh PostgreSQL database created on the
 * TEST_DATABASE_URL server (so parallel test files never see each other's rows). Open one per test file.
 */
export async function openTestDatabase(engine: Engine = DEFAULT_ENGINE): Promise<TestDatabase> {
  if (engine === 'pglite') {
    const database = await openDatabase({ memory: true, from: await migratedPgliteFolder() });
    await database.migrate();
    return { ...database, url: undefined, destroy: () => database.close() };
  }
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `tandem_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name} template ${await migratedPostgresTemplate(admin)}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString() });
  await database.migrate();
  return {
    ...database,
    url: url.toString(),
    async destroy() {
      await database.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

const MIGRATIONS_FOLDER = path.resolve(import.meta.dirname, '../../drizzle');
// Any fixed number: it only makes the workers (and other checkouts on the same server) build a template one at a time.
const TEMPLATE_LOCK_KEY = 7_316_012;
let postgresTemplate: Promise<string> | undefined;

/**
 * A database on the TEST_DATABASE_URL server with every migration applied and no rows, named after the migrations
 * it holds: each test database is created as a copy of it (CREATE DATABASE … TEMPLATE), which skips applying the
 * migrations to every new database (about half a second each). It is built under another name and renamed when
 * complete, so a half-built template is never copied; it is kept for the next run and for other checkouts with
 * the same migrations.
 */
function migratedPostgresTemplate(admin: postgres.Sql): Promise<string> {
  postgresTemplate ??= (async () => {
    const migrations = createHash('sha256');
    for (const file of readdirSync(MIGRATIONS_FOLDER, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())) {
      const relative = path.relative(MIGRATIONS_FOLDER, path.join(file.parentPath, file.name));
      migrations.update(relative).update(readFileSync(path.join(MIGRATIONS_FOLDER, relative)));
    }
    const name = `tandem_template_${migrations.digest('hex').slice(0, 16)}`;
    const lock = await admin.reserve();
    try {
      await lock`select pg_advisory_lock(${TEMPLATE_LOCK_KEY})`;
      const [existing] = await lock`select 1 from pg_database where datname = ${name}`;
      if (!existing) {
        const building = `${name}_${randomBytes(4).toString('hex')}`;
        await lock.unsafe(`create database ${building}`);
        const url = new URL(process.env.TEST_DATABASE_URL!);
        url.pathname = `/${building}`;
        const database = await openDatabase({ url: url.toString() });
        await database.migrate();
        await database.close();
        await lock.unsafe(`alter database ${building} rename to ${name}`);
      }
    } finally {
      await lock`select pg_advisory_unlock(${TEMPLATE_LOCK_KEY})`.catch(() => {});
      lock.release();
    }
    return name;
  })();
  return postgresTemplate;
}

let pgliteTemplate: Promise<Blob> | undefined;

/**
 * An empty PGlite data folder with every migration applied, made once per worker process and saved as a tarball:
 * each test database starts from a copy of it (about 0.5 s of CPU) instead of running PGlite's initdb and the
 * migrations again (2-3.5 s). The copy is a database of its own; nothing written to it reaches the template.
 */
function migratedPgliteFolder(): Promise<Blob> {
  pgliteTemplate ??= (async () => {
    const client = await PGlite.create();
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
    const folder = await client.dumpDataDir('none');
    await client.close();
    return folder;
  })();
  return pgliteTemplate;
}

/**
 * Where a Tandem process (or a whole runtime) started by a test keeps its runs: a fresh PostgreSQL database when
 * the suite has one (cheaper per process start), else a PGlite folder `dataDir`. `env` is the setting that says which; destroy `database` after.
 */
export async function openProcessStore(dataDir: string): Promise<{ env: Record<string, string>; database: TestDatabase | undefined }> {
  if (DEFAULT_ENGINE !== 'postgres') return { env: { DATA_DIR: dataDir }, database: undefined };
  const database = await openTestDatabase('postgres');
  return { env: { DATABASE_URL: database.url! }, database };
}

let dataDirTemplate: Promise<string> | undefined;

/**
 * Fills `dataDir` (a DATA_DIR for a `tandem` process a test starts) with an embedded store already made and
 * migrated, copied from one made once per worker. A first start makes the PGlite folder with initdb in a child
 * process and then migrates it: seconds of CPU each time, and on a loaded machine the slowest part of a start. Use
 * it where the first start is not what the test is about; the tests that are about it (the local workspace's first
 * run in test/cli/cli.test.ts, the data-dir tests in test/infra) keep starting on an empty folder. Not for a runtime
 * started inside the worker: there a copy of a folder this process made and closed did not start (the hook timed out).
 */
export async function migratedDataDir(dataDir: string): Promise<string> {
  dataDirTemplate ??= (async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'tandem-data-template-'));
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    const database = await openDatabase({ dataDir: folder });
    await database.migrate();
    await database.close();
    return folder;
  })();
  cpSync(await dataDirTemplate, dataDir, { recursive: true });
  return dataDir;
}
