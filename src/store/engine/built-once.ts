/**
 * The store's most frequent statements are built once per database handle and reused with new values:
 * building a drizzle query (walking its SQL chunks, checking each one's kind) cost more CPU per step than
 * the rest of the agent's bookkeeping together. Values go in as `sql.placeholder(name)`. A transaction
 * handle is a handle of its own and builds its own.
 */
import type { Db } from '../database.ts';

export function builtOnce<Query>(build: (db: Db) => Query): (db: Db) => Query {
  const built = new WeakMap<Db, Query>();
  return (db) => {
    let query = built.get(db);
    if (!query) built.set(db, (query = build(db)));
    return query;
  };
}
