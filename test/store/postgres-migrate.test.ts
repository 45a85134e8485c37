import postgres from 'postgres';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createRunStore, openDatabase } from '../../src/store/index.ts';

const serverUrl = process.env.TEST_DATABASE_URL;

// Replicas started together on an empty PostgreSQL all migrate at once; only a real server shows the race.
if (!process.env.TEST_DATABASE_URL) console.log('test/store/postgres-migrate.test.ts skipped: set TEST_DATABASE_URL to a PostgreSQL server to run it');

describe.runIf(serverUrl)('migrations on PostgreSQL', () => {
  it('apply once when three replicas migrate an empty database at the same time', async () => {
    const admin = postgres(serverUrl!, { max: 1, onnotice: () => {} });
    const name = `tandem_migrate_${randomBytes(5).toString('hex')}`;
    await admin.unsafe(`create database ${name}`);
    const url = new URL(serverUrl!);
    url.pathname = `/${name}`;
    const replicas = await Promise.all([1, 2, 3].map(() => openDatabase({ url: url.toString(), poolSize: 3 })));
    try {
      await Promise.all(replicas.map((r) => r.migrate()));
      const run = await createRunStore(replicas[0]!.db).createRun({ task: 't', requester: 'U1', conversation: { channel: 'C', threadTs: '1' }, origin: 'cli' });
      expect(await createRunStore(replicas[2]!.db).getRun(run.id)).toMatchObject({ task: 't' });
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });

  it('keeps at most the connections `?max=` in DATABASE_URL names, and refuses a max that is not a count', async () => {
    const url = new URL(serverUrl!);
    url.searchParams.set('max', '2');
    // Written with two hosts (the same server twice), as postgres.js takes a list: the setting is still read.
    const database = await openDatabase({ url: url.toString().replace(`@${url.host}/`, `@${url.host},${url.host}/`) });
    try {
      // Six statements at once, each holding its connection a moment: two connections serve them all.
      const pids = await Promise.all(
        Array.from({ length: 6 }, () =>
          database.db.execute(sql`select pg_backend_pid() as pid, pg_sleep(0.05)`).then((r) => (r as unknown as { pid: number }[])[0]!.pid),
        ),
      );
      expect(new Set(pids).size).toBe(2);
    } finally {
      await database.close();
    }
    url.searchParams.set('max', 'lots');
    await expect(openDatabase({ url: url.toString() })).rejects.toThrow('DATABASE_URL: max=lots is not a whole number from 1 to 100');
  });
});
