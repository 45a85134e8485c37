import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/index.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';

const serverUrl = process.env.TEST_DATABASE_URL;

/** Statements this connection holds prepared whose text mentions `marker`. */
const preparedWith = async (database: Database, marker: string) => {
  const rows = (await database.db.execute(sql`select statement from pg_prepared_statements`)) as unknown as { statement: string }[];
  return rows.filter((row) => row.statement.includes(marker)).length;
};

// A statement sent unnamed costs two round trips and a fresh plan each time: the bot prepares what it repeats.
describe.runIf(serverUrl)('statements on PostgreSQL', () => {
  let server: TestDatabase;
  let database: Database;
  beforeAll(async () => {
    server = await openTestDatabase('postgres');
    // One connection, so the statement and the view that lists it share a session.
    database = await openDatabase({ url: server.url!, poolSize: 1 });
  });
  afterAll(async () => {
    await database.close();
    await server.destroy();
  });

  it('are prepared once per shape, in and out of transactions', async () => {
    for (const value of [1, 2, 3]) await database.db.execute(sql`select ${value}::int as prepared_probe_a`);
    expect(await preparedWith(database, 'prepared_probe_a')).toBe(1);
    await database.db.transaction(async (tx) => {
      for (const value of [1, 2]) await tx.execute(sql`select ${value}::int as prepared_probe_b`);
      await tx.transaction(async (savepoint) => void (await savepoint.execute(sql`select ${3}::int as prepared_probe_c`)));
    });
    expect(await preparedWith(database, 'prepared_probe_b')).toBe(1);
    expect(await preparedWith(database, 'prepared_probe_c')).toBe(1);
  });
});
