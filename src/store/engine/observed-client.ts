/**
 * The drivers as drizzle sees them, each statement's outcome reported to the store's health: every
 * part of the bot (inbox, runs, leases, owed messages) goes through here, so `/healthz` learns that the
 * store cannot be written from the first statement that could not, and that it can again from the
 * first write that worked. A transaction counts once, when it commits or fails.
 */
import type { PGlite } from '@electric-sql/pglite';
import type { Sql } from 'postgres';
import type { StoreHealth } from './store-health.ts';

/** Statements that change rows (a CTE may hold one; `for update` locks rows, which writes too). */
const WRITES = /\b(insert\s+into|update|delete\s+from)\b/i;

function observed<T>(work: Promise<T>, health: StoreHealth, write: boolean): Promise<T> {
  return work.then(
    (value) => (health.succeeded(write), value),
    (error: unknown) => {
      health.failed(error);
      throw error;
    },
  );
}

/**
 * A postgres-js query is a lazy promise with methods (`values()` picks the row format) that runs when
 * awaited: the proxy keeps its methods and observes it when it is awaited.
 */
function observedQuery<Q extends PromiseLike<unknown>>(query: Q, health: StoreHealth, write: boolean): Q {
  return new Proxy(query, {
    get(target, property) {
      if (property === 'then') {
        return (onFulfilled?: (value: unknown) => unknown, onRejected?: (error: unknown) => unknown) =>
          observed(Promise.resolve(target), health, write).then(onFulfilled, onRejected);
      }
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        // `values()` and its kind return the query itself: keep observing it.
        return result === target ? observedQuery(target, health, write) : result;
      };
    },
  });
}

export function observingPostgres<C extends Sql>(client: C, health: StoreHealth): C {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, ...rest: unknown[]) =>
          observedQuery((target.unsafe as (query: string, ...r: unknown[]) => PromiseLike<unknown>)(query, ...rest), health, WRITES.test(query));
      }
      if (property === 'begin') {
        const open = Reflect.get(target, property, receiver) as (...args: unknown[]) => Promise<unknown>;
        return (...args: unknown[]) => observed(open.apply(target, args), health, true);
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

export function observingPglite(client: PGlite, health: StoreHealth): PGlite {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'query' || property === 'exec') {
        const run = Reflect.get(target, property, receiver) as (text: string, ...rest: unknown[]) => Promise<unknown>;
        return (text: string, ...rest: unknown[]) => observed(run.call(target, text, ...rest), health, WRITES.test(text));
      }
      if (property === 'transaction') {
        const open = Reflect.get(target, property, receiver) as (...args: unknown[]) => Promise<unknown>;
        return (...args: unknown[]) => observed(open.apply(target, args), health, true);
      }
      return Reflect.get(target, property, receiver);
    },
  });
}
