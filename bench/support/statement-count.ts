/**
 * Counts the statements a store sends (its transactions' included), for benches that compare how much a
 * change asks of the database: on a machine shared with other work a statement count is steadier than
 * wall time. The database's own client is wrapped and drizzle built again on it, so every layer the
 * store adds (prepared statements, health) stays in the path.
 */
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import type { Sql } from 'postgres';
import type { Database, Db } from '../../src/store/index.ts';
import * as schema from '../../src/store/schema.ts';

export interface StatementCount {
  db: Db;
  /** Statements sent so far. */
  readonly sent: number;
  /** How often each statement's text was sent, so far. */
  readonly texts: ReadonlyMap<string, number>;
}

export function countingStatements(database: Database): StatementCount {
  let sent = 0;
  const texts = new Map<string, number>();
  const count = (text: unknown) => {
    sent++;
    const key = String(text);
    texts.set(key, (texts.get(key) ?? 0) + 1);
  };
  const pglite = (client: PGlite): PGlite =>
    new Proxy(client, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property === 'query' || property === 'exec')
          return (...args: unknown[]) => (count(args[0]), (value as (...a: unknown[]) => unknown).apply(target, args));
        if (property === 'transaction')
          return (work: (tx: PGlite) => unknown) => (value as (w: (tx: PGlite) => unknown) => unknown).call(target, (tx: PGlite) => work(pglite(tx)));
        return value;
      },
    });
  const postgres = <C extends Sql>(client: C): C =>
    new Proxy(client, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property === 'unsafe') return (...args: unknown[]) => (count(args[0]), (value as (...a: unknown[]) => unknown).apply(target, args));
        if (property === 'begin' || property === 'savepoint')
          return (...args: unknown[]) => {
            const work = args.pop() as (tx: Sql) => unknown;
            return (value as (...a: unknown[]) => unknown).call(target, ...args, (tx: Sql) => work(postgres(tx)));
          };
        return value;
      },
    });
  const client = (database.db as unknown as { $client: PGlite | Sql }).$client;
  const db =
    database.engine === 'pglite'
      ? (drizzlePglite(pglite(client as PGlite), { schema }) as unknown as Db)
      : (drizzlePostgres(postgres(client as Sql), { schema }) as unknown as Db);
  return {
    db,
    get sent() {
      return sent;
    },
    texts,
  };
}
