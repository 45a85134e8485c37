import type { Metrics } from './metrics.ts';

/**
 * Counts each statement the store failed on its side, `unreachable` (down, restarting, cut off) or
 * `not-writable` (disk full, read-only), as the store's health reports it.
 */
export function countStoreErrors(
  metrics: Pick<Metrics, 'storeFailures'>,
  health: { onFailure(listener: (kind: 'unreachable' | 'not-writable') => void): () => void },
): void {
  health.onFailure((kind) => metrics.storeFailures.inc({ kind }));
}
