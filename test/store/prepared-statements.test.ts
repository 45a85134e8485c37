import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/index.ts';
import { ENGINES, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

/** Statements this session holds prepared whose text mentions `marker`. */
const preparedWith = async (database: Database, marker: string) => {
  const result = (await database.db.execute(sql`select statement from pg_prepared_statements`)) as unknown;
  const rows = (Array.isArray(result) ? result : (result as { rows: { statement: string }[] }).rows) as { statement: string }[];
  return rows.filter((row) => row.statement.includes(marker)).length;
};

const rowsOf = (result: unknown) => (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows);

// A statement sent unnamed costs a second round trip on PostgreSQL, and on PGlite five more calls into
// WebAssembly, and a fresh plan each time on both: the bot prepares what it repeats.
describe.each(ENGINES)('statements on %s', (engine) => {
  let server: TestDatabase;
  let database: Database;
  beforeAll(async () => {
    server = await openTestDatabase(engine);
    // One connection on PostgreSQL, so the statement and the view that lists it share a session.
    database = server.url ? await openDatabase({ url: server.url, poolSize: 1 }) : server;
  });
  afterAll(async () => {
    if (database !== server) await database.close();
    await server.destroy();
  });

  it('are prepared once per shape, in and out of transactions, and give each call its own values', async () => {
    for (const value of [1, 2, 3])
      expect(rowsOf(await database.db.execute(sql`select ${value}::int as prepared_probe_a`))).toEqual([{ prepared_probe_a: value }]);
    expect(await preparedWith(database, 'prepared_probe_a')).toBe(1);
    await database.db.transaction(async (tx) => {
      for (const value of [1, 2]) await tx.execute(sql`select ${value}::int as prepared_probe_b`);
      await tx.transaction(async (savepoint) => void (await savepoint.execute(sql`select ${3}::int as prepared_probe_c`)));
    });
    expect(await preparedWith(database, 'prepared_probe_b')).toBe(1);
    expect(await preparedWith(database, 'prepared_probe_c')).toBe(1);
    // Null, text, JSON and a timestamp go in as the caller gave them.
    const at = new Date('2026-01-02T03:04:05.000Z');
    const [row] = rowsOf(
      await database.db.execute(
        sql`select ${null}::text as nothing, ${"it's"}::text as words, ${JSON.stringify({ a: [1] })}::jsonb as json, ${at.toISOString()}::timestamptz as at`,
      ),
    ) as { nothing: null; words: string; json: unknown; at: Date | string }[];
    expect(row).toMatchObject({ nothing: null, words: "it's", json: { a: [1] } });
    expect(new Date(row!.at).toISOString()).toBe(at.toISOString());
  });

  it('report a failed statement with its code, roll its transaction back, and keep working', async () => {
    await database.db.execute(sql`create table prepared_probe_t (id int primary key)`);
    const insert = (id: number) => database.db.execute(sql`insert into prepared_probe_t (id) values (${id})`);
    await insert(1);
    await expect(insert(1)).rejects.toMatchObject({ cause: { code: '23505' } });
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into prepared_probe_t (id) values (${2})`);
        await tx.execute(sql`insert into prepared_probe_t (id) values (${1})`);
      }),
    ).rejects.toMatchObject({ cause: { code: '23505' } });
    await insert(3);
    expect(rowsOf(await database.db.execute(sql`select id from prepared_probe_t order by id`))).toEqual([{ id: 1 }, { id: 3 }]);
  });
});

describe('a closed PGlite store', () => {
  it('refuses a statement as PGlite does, without reaching its engine', async () => {
    const database = await openTestDatabase('pglite');
    await database.db.execute(sql`select ${1}::int as before_close`);
    await database.destroy();
    await expect(database.db.execute(sql`select ${1}::int as before_close`)).rejects.toMatchObject({ cause: { message: 'PGlite is closed' } });
  });
});
