/**
 * drizzle hands postgres-js every statement as an unnamed one (`unsafe(…, { prepare: false })`), so
 * each statement with parameters costs two round trips (parse and describe, then bind and execute) and
 * PostgreSQL parses and plans it every time. The bot runs a few dozen statement shapes over and over:
 * preparing them (postgres-js keeps one prepared statement per shape and connection, and drops and
 * re-prepares one the server invalidated) makes each one round trip on a plan PostgreSQL keeps.
 * A transaction's client, and a savepoint's, prepare the same way.
 */
import type { Sql } from 'postgres';
import { storableParams } from '../../agent/text/storable-text.ts';

/** The pool, or the client a transaction or savepoint callback is given. */
type Client = Sql | Sql<Record<string, never>>;

export function preparingClient<C extends Client>(client: C): C {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe')
        return (query: string, args?: unknown[], options?: Record<string, unknown>) =>
          (target.unsafe as (query: string, args?: readonly unknown[], options?: Record<string, unknown>) => unknown)(query, args && storableParams(args), {
            ...options,
            prepare: true,
          });
      if (property === 'begin' || property === 'savepoint') {
        const open = Reflect.get(target, property, receiver) as (...args: unknown[]) => Promise<unknown>;
        return (...args: unknown[]) => {
          const work = args.pop() as (client: Client) => unknown;
          return open.call(target, ...args, (scoped: Client) => work(preparingClient(scoped)));
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}
