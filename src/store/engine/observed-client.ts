/**
 * The drivers as drizzle sees them, each statement's outcome reported to the store's health: every
 * part of the bot (inbox, runs, leases, owed messages) goes through here, so `/healthz` learns that the
 * store cannot be written from the first statement that could not, and that it can again from the
 * first write that worked. A transaction counts once, when it commits or fails.
 */
import type { Sql } from 'postgres';
import type { PgliteClient } from './pglite-thread-client.ts';
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

/** The connection died under a statement: it may have run, and its answer is lost. */
const CONNECTION_LOST = new Set(['ECONNRESET', 'EPIPE', 'CONNECTION_CLOSED', 'CONNECTION_DESTROYED']);
const connectionLost = (error: unknown) =>
  error !== null && typeof error === 'object' && 'code' in error && typeof error.code === 'string' && CONNECTION_LOST.has(error.code);

/**
 * A read on its own (not in a transaction) whose connection was reset under it is sent once more, on another
 * connection: it changed nothing, so running it again is safe, and the request or run that asked for it goes
 * on instead of failing on a blip. A write is never sent again here: it may have been applied (callers
 * reconcile). `remake` builds the same query afresh with the same row format.
 */
function retriedRead<Q extends PromiseLike<unknown>>(remake: () => Q, health: StoreHealth): Q {
  const first = remake();
  return new Proxy(first, {
    get(target, property) {
      if (property === 'then') {
        return (onFulfilled?: (value: unknown) => unknown, onRejected?: (error: unknown) => unknown) =>
          observed(Promise.resolve(target), health, false)
            .catch((error: unknown) => {
              if (!connectionLost(error)) throw error;
              return observed(Promise.resolve(remake()), health, false);
            })
            .then(onFulfilled, onRejected);
      }
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        // `values()` picks the row format: the retry asks for the same.
        if (result !== target) return result;
        return retriedRead(() => {
          const again = remake() as unknown as Record<PropertyKey, (...a: unknown[]) => Q>;
          return again[property]!.apply(again, args);
        }, health);
      };
    },
  });
}

export function observingPostgres<C extends Sql>(client: C, health: StoreHealth): C {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, ...rest: unknown[]) => {
          const make = () => (target.unsafe as (query: string, ...r: unknown[]) => PromiseLike<unknown>)(query, ...rest);
          return WRITES.test(query) ? observedQuery(make(), health, true) : retriedRead(make, health);
        };
      }
      if (property === 'begin') {
        const open = Reflect.get(target, property, receiver) as (...args: unknown[]) => Promise<unknown>;
        return (...args: unknown[]) => observed(open.apply(target, args), health, true);
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

export function observingPglite(client: PgliteClient, health: StoreHealth): PgliteClient {
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
