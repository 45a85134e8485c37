/**
 * Whether an escalation still offers Replan, and takes it at the click (escalation-offer.ts `replanBlocked`), asks
 * the run's clock: an hour waiting for that answer, with the default 3600 s limit, is not time the run spent
 * (decision 055); an hour its own step ran is.
 */
import { describe, expect, it } from 'vitest';
import type { AgentContext } from '../../src/agent/context.ts';
import { replanBlocked } from '../../src/agent/execution/escalation-offer.ts';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import { createMemoryRunStore } from '../../src/agent/testing/memory-store/index.ts';
import { said } from '../helpers/words.ts';
import { BUDGETS } from './support/harness.ts';
import { ScriptedLlm } from './support/scripted-llm.ts';

const plan: Plan = {
  schemaVersion: 1,
  goal: 'write things',
  confidence: 0.9,
  steps: [
    { id: 's1', title: 'Write', tool: 'write_thing', args: { key: 'x' }, dependsOn: [] },
    { id: 's2', title: 'Read', tool: 'read_thing', args: { key: 'y' }, dependsOn: [] },
  ],
  rollback: [],
};

const HOUR_MS = 3_600_000;

/** A run approved now whose s1 failed at once and was escalated; `offerAfter(ms)` asks what it offers that long after. */
async function escalatedRun(options: { besideRunning?: boolean } = {}) {
  const store = createMemoryRunStore();
  const run = await store.createRun({ task: 'write', requester: 'U1', conversation: { channel: 'C1', threadTs: '1900.1' }, origin: 'mention' });
  await store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'm', parentVersion: null, reason: null });
  await store.createSteps(
    run.id,
    1,
    plan.steps.map((step) => ({
      stepId: step.id,
      kind: 'forward' as const,
      title: step.title,
      tool: step.tool,
      risk: 'read' as const,
      dependsOn: [],
      plannedArgs: step.args,
    })),
  );
  await store.recordApproval({ runId: run.id, planVersion: 1, userId: 'U2', decision: 'approved', need: 'approver' });
  await store.updateRun(run.id, { currentPlanVersion: 1, status: 'executing' });
  const claim = (stepId: string) => store.claimStep({ runId: run.id, planVersion: 1, stepId, owner: 'A', leaseMs: 30_000, executedArgs: {} });
  const s1 = await claim('s1');
  // s2 still runs beside the escalation: the run is not only waiting.
  if (options.besideRunning) await claim('s2');
  await store.finishStep({ runId: run.id, planVersion: 1, stepId: 's1', attempt: s1!.attempt, status: 'failed', error: { message: 'no' } });
  await store.openEscalation({ runId: run.id, planVersion: 1, stepId: 's1', kind: 'step-failed', message: 'failed' });
  const offerAfter = (ms: number) => {
    const ctx = { config: { settings: { budgets: BUDGETS } }, models: { llm: new ScriptedLlm() }, now: () => new Date(Date.now() + ms), store };
    return replanBlocked(ctx as unknown as Pick<AgentContext, 'config' | 'models' | 'now' | 'store'>, run);
  };
  return { offerAfter };
}

describe('Replan after a long wait for a person', () => {
  it('an escalation answered more than TANDEM_RUN_TIMEOUT_S after it was raised may still ask for a new plan', async () => {
    const { offerAfter } = await escalatedRun();
    expect(await offerAfter(HOUR_MS + 60_000)).toBeNull();
  });

  it('while another step of the run ran that hour, the time counts and the limit blocks it', async () => {
    const { offerAfter } = await escalatedRun({ besideRunning: true });
    expect(said(await offerAfter(HOUR_MS + 60_000))).toMatch(/took longer than 3600s \(TANDEM_RUN_TIMEOUT_S\)/);
  });
});
