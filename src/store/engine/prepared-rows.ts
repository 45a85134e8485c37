/**
 * A raw statement whose text is built once, not on every call. `db.execute(sql…)` walks the statement's chunks
 * and joins its text anew each time; for the statements a run sends a dozen times that was about a fifth of what
 * the soak allocated (decision 030, session 19), and the scavenges it set off were the longest holds of the event
 * loop. Values go in as `sql.placeholder(name)` and are given to each call by name. The statement is handed to
 * the engine's driver as drizzle hands `db.execute`'s, so postgres-js prepares it and PGlite's thread does too.
 */
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Db } from '../database.ts';
import { builtOnce } from './built-once.ts';
import { rowsOf } from './raw-rows.ts';

const dialect = new PgDialect();

export type PreparedRows<Row> = (db: Db, values: Record<string, unknown>) => Promise<Row[]>;

/** The statement as text and its parameters' places; `name` only marks it as one to prepare. */
export function preparedRows<Row>(name: string, statement: SQL): PreparedRows<Row> {
  const query = dialect.sqlToQuery(statement);
  const prepared = builtOnce((db) => db._.session.prepareQuery(query, undefined, name, false));
  return async (db, values) => rowsOf<Row>(await prepared(db).execute(values));
}

/**
 * For a statement whose text depends on a few facts of the call (a clause present or not, a list's length): one
 * prepared statement per shape, built the first time that shape is used. The shapes must be few; the ones past
 * `limit` are built for each call, as `db.execute` would.
 */
export function preparedShapes<Shape extends string | number, Row>(build: (shape: Shape) => SQL, name: string, limit = 32) {
  const shapes = new Map<Shape, PreparedRows<Row>>();
  return (shape: Shape): PreparedRows<Row> => {
    let statement = shapes.get(shape);
    if (statement) return statement;
    statement = preparedRows<Row>(`${name}_${shape}`, build(shape));
    if (shapes.size < limit) shapes.set(shape, statement);
    return statement;
  };
}
