import type { CustomRoute } from '@slack/bolt';
import type { Database } from '../store/index.ts';
import { withStoreDeadline } from '../store/index.ts';

/** Long enough for a busy store, short enough that an orchestrator's own check (often 1–5 s) sees the answer. */
const PROBE_TIMEOUT_MS = 1_000;

/**
 * `GET /healthz`: 200 `{ ok: true }` while the store answers and no statement failed on the store's side
 * within the health window; else 503 with the reason, so an orchestrator stops routing Slack's requests to
 * a replica that cannot store them. Concurrent checks share one probe.
 */
export function storeHealthRoute(database: Pick<Database, 'health' | 'ping'>, probeTimeoutMs = PROBE_TIMEOUT_MS): CustomRoute {
  let probing: Promise<void> | undefined;
  const probe = () =>
    (probing ??= withStoreDeadline(database.ping(probeTimeoutMs), probeTimeoutMs + 100, 'a health check')
      // A failed statement was reported by the driver already; a store that did not answer at all is reported here.
      .catch((error: unknown) => (error instanceof Error && error.name === 'StoreTimeoutError' ? database.health.failed(error) : undefined))
      .finally(() => (probing = undefined)));
  return {
    path: '/healthz',
    method: ['GET'],
    handler: (_req, res) => {
      void probe().then(() => {
        const health = database.health.snapshot();
        res.writeHead(health.ok ? 200 : 503, { 'content-type': 'application/json' });
        res.end(JSON.stringify(health.ok ? { ok: true } : { ok: false, store: 'unavailable', reason: health.reason }));
      });
    },
  };
}
