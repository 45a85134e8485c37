/**
 * Migration 0016: a plan nobody approved in time ended its run as `rejected` before; such runs become `expired`, also
 * one `tandem prune` already stripped of its summary, while a plan a person rejected stays `rejected` (decision 035,
 * amended in session 17). On both engines.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunStore, openDatabase, type Database } from '../../src/store/index.ts';
import { ENGINES, type Engine } from '../helpers/database.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const UPGRADE = '0016_expired-runs';

/** The migrations folder as it was before: every migration before 0016. */
async function folderBefore(): Promise<string> {
  const source = path.resolve('drizzle');
  const dir = path.join(await tempDir('tandem-migrations-'), 'drizzle');
  mkdirSync(path.join(dir, 'meta'), { recursive: true });
  const journal = JSON.parse(readFileSync(path.join(source, 'meta', '_journal.json'), 'utf8')) as { entries: { idx: number; tag: string }[] };
  journal.entries = journal.entries.slice(
    0,
    journal.entries.findIndex((entry) => entry.tag === UPGRADE),
  );
  writeFileSync(path.join(dir, 'meta', '_journal.json'), JSON.stringify(journal));
  for (const entry of journal.entries) cpSync(path.join(source, `${entry.tag}.sql`), path.join(dir, `${entry.tag}.sql`));
  return dir;
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** A database migrated up to the one before 0016. */
async function migratedBefore(engine: Engine): Promise<Database> {
  let database: Database;
  if (engine === 'pglite') {
    database = await openDatabase({ memory: true });
    cleanups.push(() => database.close());
  } else {
    const admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
    const name = `tandem_upgrade_${randomBytes(5).toString('hex')}`;
    await admin.unsafe(`create database ${name}`);
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    database = await openDatabase({ url: url.toString(), poolSize: 2 });
    cleanups.push(async () => {
      await database.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    });
  }
  const migrationsFolder = await folderBefore();
  if (database.engine === 'pglite') await migratePglite(database.db as never, { migrationsFolder });
  else await migratePostgres(database.db as never, { migrationsFolder });
  return database;
}

describe.each(ENGINES)('runs whose plan expired, across migration 0016 (%s)', (engine) => {
  it('become expired, pruned ones too; a rejected plan stays rejected, and other runs are left alone', async () => {
    const database = await migratedBefore(engine);
    const run = (id: string, status: string, summary: Record<string, unknown> | null) =>
      database.db.execute(
        sql`insert into runs (id, task, requester, channel, thread_ts, origin, status, summary, finished_at)
            values (${id}, 'release', 'U1', 'C1', ${id}, 'mention', ${status}, ${summary === null ? null : JSON.stringify(summary)}::jsonb, now())`,
      );
    await run('run_expired', 'rejected', { outcome: 'rejected', expired: true });
    await run('run_expired_pruned', 'rejected', null);
    await run('run_rejected', 'rejected', { outcome: 'rejected' });
    await run('run_rejected_pruned', 'rejected', null);
    await run('run_succeeded', 'succeeded', null);
    for (const id of ['run_rejected', 'run_rejected_pruned'])
      await database.db.execute(sql`insert into approvals (run_id, plan_version, user_id, decision) values (${id}, 1, 'U2', 'rejected')`);

    await database.migrate();

    const store = createRunStore(database.db);
    const statuses = Object.fromEntries(
      await Promise.all(
        ['run_expired', 'run_expired_pruned', 'run_rejected', 'run_rejected_pruned', 'run_succeeded'].map(async (id) => [id, (await store.getRun(id))?.status]),
      ),
    );
    expect(statuses).toEqual({
      run_expired: 'expired',
      run_expired_pruned: 'expired',
      run_rejected: 'rejected',
      run_rejected_pruned: 'rejected',
      run_succeeded: 'succeeded',
    });
  });
});
