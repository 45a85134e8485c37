import { Counter, type Registry } from 'prom-client';

/**
 * `tandem_store_errors_total{kind}`: statements the store failed on its side, `unreachable` (down,
 * restarting, cut off) or `not-writable` (disk full, read-only). Kept apart from metrics.ts: it is fed by
 * the store's health, not by the agent.
 */
export function countStoreErrors(
  registry: Registry,
  health: { onFailure(listener: (kind: 'unreachable' | 'not-writable') => void): () => void },
): Counter<'kind'> {
  const counter = new Counter({
    name: 'tandem_store_errors_total',
    help: 'Store failures (the database unreachable, or unable to write), by kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  // Both kinds show from the start, at 0, so an alert on their rate has a series to read.
  counter.inc({ kind: 'unreachable' }, 0);
  counter.inc({ kind: 'not-writable' }, 0);
  health.onFailure((kind) => counter.inc({ kind }));
  return counter;
}
