import { createHash, randomBytes } from 'node:crypto';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
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

/** A hash of every file under drizzle/: a template made from other migrations is never used. */
function migrationsHash(): string {
  const migrations = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS_FOLDER, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())) {
    const relative = path.relative(MIGRATIONS_FOLDER, path.join(file.parentPath, file.name));
    migrations.update(relative).update(readFileSync(path.join(MIGRATIONS_FOLDER, relative)));
  }
  return migrations.digest('hex').slice(0, 16);
}

/**
 * Where the PGlite templates are kept between worker processes and between runs (docs/decisions/040): named after
 * the migrations, the installed PGlite and the files that make the template (`madeBy`), so a change to any of them
 * makes new ones. Each is written under a name of its own and renamed into place when complete, so a half-written
 * one is never read.
 */
const TEMPLATE_CACHE = path.resolve(import.meta.dirname, '../../node_modules/.cache/tandem-tests');
const ROOT = path.resolve(import.meta.dirname, '../..');
function cachedTemplatePath(kind: string, madeBy: string[]): string {
  const pglite = JSON.parse(readFileSync(path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string };
  const sources = createHash('sha256');
  for (const file of madeBy) sources.update(file).update(readFileSync(path.join(ROOT, file)));
  return path.join(TEMPLATE_CACHE, `${kind}-${pglite.version}-${migrationsHash()}-${sources.digest('hex').slice(0, 8)}`);
}

/**
 * `make` writes a new template at the path it is given; one process at a time (a lock file beside it), the others
 * wait for it to appear. On a clean clone (CI) every worker's first file asks for the same templates at once: each
 * made its own, four PGlite databases migrated at once where one does (seen on four store files). A lock whose
 * process is gone is taken over. The templates of its kind made from older sources (41 MB each) are removed.
 */
async function keepTemplate(kind: string, final: string, make: (building: string) => Promise<void>): Promise<void> {
  mkdirSync(TEMPLATE_CACHE, { recursive: true });
  const lock = `${final}.lock`;
  while (!existsSync(final)) {
    if (takeLock(lock)) {
      try {
        if (!existsSync(final)) await makeTemplate(kind, final, make);
      } finally {
        rmSync(lock, { force: true });
      }
      return;
    }
    if (lockOwnerGone(lock)) rmSync(lock, { force: true });
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The lock file made with this process's id in it, or false when another process holds it. */
function takeLock(lock: string): boolean {
  let fd: number;
  try {
    fd = openSync(lock, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  writeSync(fd, String(process.pid));
  closeSync(fd);
  return true;
}

/**
 * Whether the process named in the lock has ended (a worker killed while it built), or the lock is older than any
 * build (its process id reused since): then nobody will finish it.
 */
function lockOwnerGone(lock: string): boolean {
  let pid: number;
  try {
    if (statSync(lock).mtimeMs < Date.now() - 5 * 60_000) return true;
    pid = Number(readFileSync(lock, 'utf8'));
  } catch {
    return false; // Removed meanwhile: the template is there or about to be.
  }
  // Empty while its owner is between making the file and writing into it.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function makeTemplate(kind: string, final: string, make: (building: string) => Promise<void>): Promise<void> {
  const building = `${final}.building-${process.pid}-${randomBytes(3).toString('hex')}`;
  try {
    await make(building);
    renameSync(building, final);
    for (const old of readdirSync(TEMPLATE_CACHE))
      if (old.startsWith(`${kind}-`) && !old.includes('.building-') && !old.endsWith('.lock') && old !== path.basename(final))
        rmSync(path.join(TEMPLATE_CACHE, old), { recursive: true, force: true });
  } catch (error) {
    if (!existsSync(final)) throw error;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/**
 * A database on the TEST_DATABASE_URL server with every migration applied and no rows, named after the migrations
 * it holds: each test database is created as a copy of it (CREATE DATABASE … TEMPLATE), which skips applying the
 * migrations to every new database (about half a second each). It is built under another name and renamed when
 * complete, so a half-built template is never copied; it is kept for the next run and for other checkouts with
 * the same migrations.
 */
function migratedPostgresTemplate(admin: postgres.Sql): Promise<string> {
  postgresTemplate ??= (async () => {
    const name = `tandem_template_${migrationsHash()}`;
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
 * An empty PGlite data folder with every migration applied, saved as a tarball: each test database starts from a
 * copy of it (about 0.5 s of CPU) instead of running PGlite's initdb and the migrations again (2-5 s). Made once
 * and kept on disk (TEMPLATE_CACHE), so the workers of every project and every later run read it instead of each
 * making its own. The copy is a database of its own; nothing written to it reaches the template.
 */
function migratedPgliteFolder(): Promise<Blob> {
  pgliteTemplate ??= (async () => {
    const file = cachedTemplatePath('pglite-dump', ['test/helpers/database.ts']);
    if (!existsSync(file))
      await keepTemplate('pglite-dump', file, async (building) => {
        const client = await PGlite.create();
        await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
        const folder = await client.dumpDataDir('none');
        await client.close();
        writeFileSync(building, Buffer.from(await folder.arrayBuffer()));
      });
    return new Blob([readFileSync(file)]);
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
 * migrated, copied from one kept on disk (TEMPLATE_CACHE). A first start makes the PGlite folder with initdb in a child
 * process and then migrates it: seconds of CPU each time, and on a loaded machine the slowest part of a start. Use
 * it where the first start is not what the test is about; the tests that are about it (the local workspace's first
 * run in test/cli/cli.test.ts, the data-dir tests in test/infra) keep starting on an empty folder. Not for a runtime
 * started inside the worker: there a copy of a folder this process made and closed did not start (the hook timed out).
 */
export async function migratedDataDir(dataDir: string): Promise<string> {
  dataDirTemplate ??= (async () => {
    const folder = cachedTemplatePath('pglite-data-dir', ['src/store/database.ts', 'src/store/pglite-initdb.mjs']);
    if (!existsSync(folder))
      await keepTemplate('pglite-data-dir', folder, async (building) => {
        const database = await openDatabase({ dataDir: building });
        await database.migrate();
        await database.close();
      });
    return folder;
  })();
  cpSync(await dataDirTemplate, dataDir, { recursive: true });
  return dataDir;
}
