import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { LOOP_LAG_GAUGES, registerLoopLag } from './loop-lag.ts';

/** Everything /metrics exposes. Labels carry names and outcomes only — never ids, text or secrets. */
export interface Metrics {
  registry: Registry;
  runsFinished: Counter<'outcome'>;
  stepsFinished: Counter<'tool' | 'status'>;
  /** Calls agent_task's model made: to a listed tool (succeeded, failed) or refused (tool `-`: the name is the model's). */
  agentCalls: Counter<'tool' | 'status'>;
  stepDuration: Histogram<'tool'>;
  escalations: Counter<'kind'>;
  feedback: Counter<'value' | 'author_kind'>;
  llmTokens: Counter<'role' | 'model' | 'direction'>;
  llmCost: Counter<'role' | 'model'>;
  apiErrors: Counter<'api' | 'kind'>;
  leaseLag: Gauge;
  /** Store calls that failed, by port method (a database down, a constraint the code did not expect). */
  storeErrors: Counter<'operation'>;
  storeFailures: Counter<'kind'>;
  /** Waits for a person now open, by kind (approval, question, escalation, confirm); set each housekeeping minute. */
  waitsOpen: Gauge<'kind'>;
  /** How long the oldest open wait of each kind has waited. */
  waitOldest: Gauge<'kind'>;
  /** After how long a wait of each kind is reminded about (the settings): the alert compares the two. */
  waitRemindAfter: Gauge<'kind'>;
  /** Runs not yet ended, by status. */
  runsActive: Gauge<'status'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tandem_' });
  // prom-client's lag percentiles read 10 ms high on Node 20 (src/observability/loop-lag.ts): the same names, measured right.
  for (const name of LOOP_LAG_GAUGES) registry.removeSingleMetric(`tandem_${name}`);
  registerLoopLag(registry, 'tandem_');
  return {
    registry,
    runsFinished: new Counter({ name: 'tandem_runs_total', help: 'Runs that ended, by outcome', labelNames: ['outcome'], registers: [registry] }),
    stepsFinished: new Counter({
      name: 'tandem_steps_total',
      help: 'Tool calls that ended, by tool and status',
      labelNames: ['tool', 'status'],
      registers: [registry],
    }),
    agentCalls: new Counter({
      name: 'tandem_agent_calls_total',
      help: 'Tool calls made inside agent_task, by tool and status (refused calls under tool "-")',
      labelNames: ['tool', 'status'],
      registers: [registry],
    }),
    stepDuration: new Histogram({
      name: 'tandem_step_duration_seconds',
      help: 'Time a step ran, by tool',
      labelNames: ['tool'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
      registers: [registry],
    }),
    feedback: new Counter({
      name: 'tandem_feedback_total',
      help: 'Feedback on run summaries, by value (good, bad) and plan author kind',
      labelNames: ['value', 'author_kind'],
      registers: [registry],
    }),
    escalations: new Counter({ name: 'tandem_escalations_total', help: 'Escalations to people, by kind', labelNames: ['kind'], registers: [registry] }),
    llmTokens: new Counter({
      name: 'tandem_llm_tokens_total',
      help: 'Model tokens, by role, model and direction',
      labelNames: ['role', 'model', 'direction'],
      registers: [registry],
    }),
    llmCost: new Counter({
      name: 'tandem_llm_cost_usd_total',
      help: 'Model cost in USD, by role and model',
      labelNames: ['role', 'model'],
      registers: [registry],
    }),
    apiErrors: new Counter({
      name: 'tandem_api_errors_total',
      help: 'Slack and GitHub API errors, by API and kind (rate_limited, timeout: no answer in time, error)',
      labelNames: ['api', 'kind'],
      registers: [registry],
    }),
    leaseLag: new Gauge({ name: 'tandem_lease_lag_seconds', help: 'How long past its lease the oldest expired step lease is', registers: [registry] }),
    storeErrors: new Counter({
      name: 'tandem_store_call_errors_total',
      help: 'Store calls that failed, by operation',
      labelNames: ['operation'],
      registers: [registry],
    }),
    storeFailures: storeFailureCounter(registry),
    waitsOpen: new Gauge({ name: 'tandem_waits_open', help: 'Waits for a person now open, by kind', labelNames: ['kind'], registers: [registry] }),
    waitOldest: new Gauge({
      name: 'tandem_wait_oldest_seconds',
      help: 'How long the oldest open wait for a person of each kind has waited',
      labelNames: ['kind'],
      registers: [registry],
    }),
    waitRemindAfter: new Gauge({
      name: 'tandem_wait_remind_after_seconds',
      help: 'After how long an open wait of each kind is reminded about (settings)',
      labelNames: ['kind'],
      registers: [registry],
    }),
    runsActive: new Gauge({ name: 'tandem_runs_active', help: 'Runs not yet ended, by status', labelNames: ['status'], registers: [registry] }),
  };
}

/** `tandem_store_errors_total{kind}`: statements the store failed on its side, fed by the store's health (src/observability/store-error-metrics.ts). */
function storeFailureCounter(registry: Registry): Counter<'kind'> {
  const counter = new Counter({
    name: 'tandem_store_errors_total',
    help: 'Store failures (the database unreachable, or unable to write), by kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  // Both kinds show from the start, at 0, so an alert on their rate has a series to read.
  counter.inc({ kind: 'unreachable' }, 0);
  counter.inc({ kind: 'not-writable' }, 0);
  return counter;
}
