import type { CustomRoute } from '@slack/bolt';
import type { Metrics } from '../observability/metrics.ts';

export function metricsRoute(metrics: Metrics): CustomRoute {
  return {
    path: '/metrics',
    method: ['GET'],
    handler: (_req, res) => {
      metrics.registry
        .metrics()
        .then((text) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(text);
        })
        .catch(() => {
          res.writeHead(500);
          res.end();
        });
    },
  };
}
