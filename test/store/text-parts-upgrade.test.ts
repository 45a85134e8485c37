/**
 * Reasons and escalation messages became words with people as data (migration 0006). A database written
 * before keeps working: its prose reads back as it was, and new rows keep people as data, on both engines.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { afterAll, describe, expect, it } from 'vitest';
import { person, words } from '../../src/agent/text/text.ts';
import { storedWords } from '../../src/bot/views/text.ts';
import { createRunStore, openDatabase, type Database } from '../../src/store/index.ts';
import { ENGINES, type Engine } from '../helpers/database.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const BEFORE = '0006_text-parts';

/** The migrations folder as it was before people became data: every migration up to 0006. */
async function folderBefore(): Promise<string> {
  const source = path.resolve('drizzle');
  const dir = path.join(await tempDir('tandem-migrations-'), 'drizzle');
  mkdirSync(path.join(dir, 'meta'), { recursive: true });
  const journal = JSON.parse(readFileSync(path.join(source, 'meta', '_journal.json'), 'utf8')) as { entries: { idx: number; tag: string }[] };
  const cut = journal.entries.findIndex((entry) => entry.tag === BEFORE);
  journal.entries = journal.entries.slice(0, cut);
  writeFileSync(path.join(dir, 'meta', '_journal.json'), JSON.stringify(journal));
  for (const entry of journal.entries) cpSync(path.join(source, `${entry.tag}.sql`), path.join(dir, `${entry.tag}.sql`));
  return dir;
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function unmigrated(engine: Engine): Promise<Database> {
  if (engine === 'pglite') {
    const database = await openDatabase({ memory: true });
    cleanups.push(() => database.close());
    return database;
  }
  const admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  const name = `tandem_upgrade_${randomBytes(5).toString('hex')}`;
  await admin.unsafe(`create database ${name}`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), poolSize: 2 });
  cleanups.push(async () => {
    await database.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });
  return database;
}

async function migrateBefore(database: Database): Promise<void> {
  const migrationsFolder = await folderBefore();
  if (database.engine === 'pglite') await migratePglite(database.db as never, { migrationsFolder });
  else await migratePostgres(database.db as never, { migrationsFolder });
}

describe.each(ENGINES)('stored words across the upgrade (%s)', (engine) => {
  it('reads a reason and an escalation written as prose before, and keeps people as data after', async () => {
    const database = await unmigrated(engine);
    await migrateBefore(database);
    const store = createRunStore(database.db);
    // Written as that schema held it: today's store writes columns added later (a run's trace ids).
    const run = { id: 'run_before_0006' };
    await database.db.execute(
      sql`insert into runs (id, task, requester, channel, thread_ts, origin, status) values (${run.id}, 'release', 'U1', 'C1', '1.0', 'cli', 'planning')`,
    );
    const plan = { schemaVersion: 1, goal: 'g', confidence: 1, steps: [], rollback: [] };
    await database.db.execute(
      sql`insert into plan_versions (run_id, version, plan, author_kind, author_id, reason) values (${run.id}, 1, ${JSON.stringify(plan)}::jsonb, 'human', 'U2', ${'edited by <@U2>'})`,
    );
    await database.db.execute(
      sql`insert into escalations (id, run_id, plan_version, step_id, kind, message) values ('esc_old', ${run.id}, 1, 's1', 'step-failed', ${'s1 failed: <!channel> 404'})`,
    );

    await database.migrate();

    const [old] = await store.listPlanVersions(run.id);
    expect(old?.reason).toBe('edited by <@U2>');
    const [escalation] = await store.listEscalations(run.id);
    expect(escalation?.message).toBe('s1 failed: <!channel> 404');
    // Prose from before is shown as words: nothing in it becomes a ping.
    expect(storedWords(escalation!.message, 200)).toBe('s1 failed: &lt;!channel&gt; 404');

    const added = await store.addPlanVersion({
      runId: run.id,
      plan: plan as never,
      authorKind: 'human',
      authorId: 'U3',
      parentVersion: 1,
      reason: words`edited by ${person('U3')}`,
    });
    expect(added.reason).toEqual(['edited by ', { user: 'U3' }]);
    expect((await store.getPlanVersion(run.id, 2))?.reason).toEqual(['edited by ', { user: 'U3' }]);
    expect(storedWords(added.reason!, 200)).toBe('edited by <@U3>');
  });
});
