/**
 * docs/ops: the Grafana dashboard and the Prometheus alert rules name only metrics the bot exports, and
 * cover what an on-call team looks at. "Exports" is what GET /metrics serves (the registry's exposition
 * text, as http-routes.ts sends it), with a histogram's _bucket, _sum and _count series.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMetrics } from '../../src/observability/metrics.ts';

const root = path.resolve(import.meta.dirname, '../..');

async function exportedNames(): Promise<Set<string>> {
  const text = await createMetrics().registry.metrics();
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

const metricNames = (expr: string) => [...expr.matchAll(/\btandem_[a-z0-9_]+\b/g)].map((m) => m[0]);

const Dashboard = z.object({
  title: z.string(),
  panels: z.array(z.object({ title: z.string(), targets: z.array(z.object({ expr: z.string().min(1) })).min(1) })).min(1),
});
const Rules = z.object({
  groups: z.array(
    z.object({
      name: z.string(),
      rules: z.array(
        z.object({
          alert: z.string(),
          expr: z.string(),
          for: z.string().regex(/^\d+[smh]$/),
          labels: z.object({ severity: z.enum(['critical', 'warning', 'info']) }),
          annotations: z.object({ summary: z.string(), description: z.string() }),
        }),
      ),
    }),
  ),
});

const dashboard = Dashboard.parse(JSON.parse(readFileSync(path.join(root, 'docs/ops/grafana-dashboard.json'), 'utf8')));
const rules = Rules.parse(parse(readFileSync(path.join(root, 'docs/ops/alerts.yml'), 'utf8'))).groups.flatMap((group) => group.rules);

describe('docs/ops', () => {
  it('the dashboard names only metrics /metrics exports, and shows runs, waits, step latency, tokens, API and store errors', async () => {
    const exported = await exportedNames();
    const used = dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => metricNames(target.expr)));
    expect(used.filter((name) => !exported.has(name))).toEqual([]);
    for (const needed of [
      'tandem_runs_total',
      'tandem_waits_open',
      'tandem_wait_oldest_seconds',
      'tandem_step_duration_seconds_bucket',
      'tandem_llm_tokens_total',
      'tandem_api_errors_total',
      'tandem_store_errors_total',
    ]) {
      expect(used, needed).toContain(needed);
    }
  });

  it('every alert names only exported metrics, and a stale wait, stuck runs and error rates are alerted on', async () => {
    const exported = await exportedNames();
    const unknown = rules.flatMap((rule) =>
      metricNames(rule.expr)
        .filter((name) => !exported.has(name))
        .map((name) => `${rule.alert}: ${name}`),
    );
    expect(unknown).toEqual([]);
    const alerting = (metric: string) => rules.filter((rule) => metricNames(rule.expr).includes(metric)).map((rule) => rule.alert);
    expect(alerting('tandem_wait_remind_after_seconds')).toEqual(['TandemWaitOlderThanItsReminder']);
    expect(alerting('tandem_lease_lag_seconds')).toEqual(['TandemRunsStuck']);
    expect(alerting('tandem_api_errors_total').length).toBeGreaterThan(0);
    expect(alerting('tandem_store_errors_total').length).toBeGreaterThan(0);
    expect(alerting('tandem_runs_total').length).toBeGreaterThan(0);
  });
});
