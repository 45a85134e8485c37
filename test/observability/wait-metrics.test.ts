/** What /metrics says of the waits for people and the runs under way, and of store calls that fail. */
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import { PLAN_SCHEMA_VERSION } from '../../src/agent/model/plan/plan.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { instrumentRunStore } from '../../src/observability/instrumented-store.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { recordOpenWaits, recordRemindAfter } from '../../src/observability/wait-metrics.ts';
import { openWaits } from '../../src/store/index.ts';
import { useTestStore } from '../helpers/store.ts';

const testStore = useTestStore();
const plan: Plan = {
  schemaVersion: PLAN_SCHEMA_VERSION,
  goal: 'g',
  confidence: 0.9,
  steps: [{ id: 's1', title: 't', tool: 'sleep', args: {}, dependsOn: [] }],
  rollback: [],
};

describe('wait metrics', () => {
  it('counts the plan awaiting approval and the open escalation, with the runs under way by status', async () => {
    const { store } = testStore;
    const waiting = await store.createRun({ task: 'a', requester: 'U1', conversation: { channel: 'C1', threadTs: '1.1' }, origin: 'mention' });
    await store.addPlanVersion({ runId: waiting.id, plan, authorKind: 'planner', authorId: 'm', parentVersion: null, reason: null, proposed: {} });
    await store.transitionRun(waiting.id, ['planning'], 'awaiting-approval');
    const paused = await store.createRun({ task: 'b', requester: 'U1', conversation: { channel: 'C1', threadTs: '1.2' }, origin: 'mention' });
    await store.openEscalation({ runId: paused.id, planVersion: null, stepId: null, kind: 'budget', message: 'over budget' });

    const metrics = createMetrics();
    recordRemindAfter(metrics, { remindAfterS: 1800, waitTtlS: 86_400 });
    recordOpenWaits(metrics, await openWaits(testStore.database.db));
    const text = await metrics.registry.metrics();
    expect(text).toContain('tandem_waits_open{kind="approval"} 1');
    expect(text).toContain('tandem_waits_open{kind="escalation"} 1');
    expect(text).toContain('tandem_waits_open{kind="question"} 0');
    expect(text).toContain('tandem_runs_active{status="awaiting-approval"} 1');
    expect(text).toContain('tandem_runs_active{status="planning"} 1');
    expect(text).toContain('tandem_wait_remind_after_seconds{kind="approval"} 1800');
    expect(text).toContain('tandem_wait_remind_after_seconds{kind="escalation"} 1800');
  });

  it('counts a store call that fails, by operation, and still fails it', async () => {
    const metrics = createMetrics();
    const broken = { ...testStore.store, getRun: () => Promise.reject(new Error('connection refused')) } as RunStore;
    await expect(instrumentRunStore(broken, metrics).getRun('run_x')).rejects.toThrow('connection refused');
    expect(await metrics.registry.metrics()).toContain('tandem_store_call_errors_total{operation="getRun"} 1');
  });

  it('shows runs by outcome from the start, each at 0, before any run has ended', async () => {
    const metrics = createMetrics();
    instrumentRunStore(testStore.store, metrics);
    const text = await metrics.registry.metrics();
    for (const outcome of ['succeeded', 'failed', 'cancelled', 'aborted', 'rejected', 'expired'])
      expect(text).toContain(`tandem_runs_total{outcome="${outcome}"} 0`);
  });
});
