import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRows } from '../../src/store/engine/raw-rows.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';

/** How many turns the event loop takes while `work` is in flight. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  try {
    return { value: await work(), turns };
  } finally {
    running = false;
  }
}

// PGlite's statements ran synchronously on the bot's thread: while one ran, nothing else did (an ack, a
// timer, the health check). In a thread of its own, the bot's event loop goes on meanwhile (decision 049).
describe('the embedded PGlite store', () => {
  let database: TestDatabase;
  beforeAll(async () => void (database = await openTestDatabase('pglite')));
  afterAll(() => database.destroy());

  it('leaves the event loop free while a statement runs', async () => {
    const { value, turns } = await turnsDuring(() =>
      rawRows<{ total: number }>(database.db, sql`select count(*)::int as total from generate_series(1, ${3_000_000}::int)`),
    );
    expect(value).toEqual([{ total: 3_000_000 }]);
    expect(turns).toBeGreaterThan(10);
  });

  it('holds the store for a transaction until it ends: a statement sent meanwhile runs after it and sees its rows', async () => {
    await database.db.execute(sql`create table thread_probe (id int primary key)`);
    let outside: Promise<unknown> | undefined;
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into thread_probe (id) values (${1})`);
      outside = rawRows(database.db, sql`select count(*)::int as rows from thread_probe`);
      // The loop turns while the transaction is open; the statement outside it still waits.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await tx.execute(sql`insert into thread_probe (id) values (${2})`);
    });
    expect(await outside).toEqual([{ rows: 2 }]);
  });

  it('rolls a failed transaction back and reports the statement’s own error', async () => {
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into thread_probe (id) values (${3})`);
        await tx.execute(sql`insert into thread_probe (id) values (${1})`);
      }),
    ).rejects.toMatchObject({ cause: { code: '23505', constraint: 'thread_probe_pkey' } });
    expect(await rawRows(database.db, sql`select id from thread_probe order by id`)).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('lets a transaction open when the store is closed commit before PGlite closes', async () => {
    const closing = await openTestDatabase('pglite');
    let closed: Promise<void> | undefined;
    const committed = closing.db.transaction(async (tx) => {
      await tx.execute(sql`create table closing_probe (id int primary key)`);
      closed = closing.destroy();
      await tx.execute(sql`insert into closing_probe (id) values (${1})`);
      return 'committed';
    });
    await expect(committed).resolves.toBe('committed');
    await closed;
    await expect(closing.db.execute(sql`select 1`)).rejects.toMatchObject({ cause: { message: 'PGlite is closed' } });
  });
});
