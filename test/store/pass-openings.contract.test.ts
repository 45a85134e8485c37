/**
 * The bulk first read of many drivers (OpeningsPort) answers for each run what the driver would have read on
 * its own: the run, the version its row names, its approvals, every step row, its open escalations and its
 * token total. Memory, PGlite, and PostgreSQL with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { openTestStore, STORE_ENGINES, type TestStore } from '../helpers/store.ts';

const plan = (tool: string): Plan => ({
  schemaVersion: 1,
  goal: 'read things',
  confidence: 0.9,
  steps: [{ id: 's1', title: 'Read', tool, args: { key: 'x' }, dependsOn: [] }],
  rollback: [],
});

describe.each(STORE_ENGINES)('pass openings on %s', (engine) => {
  let opened: TestStore;
  let store: RunStore;
  let seq = 0;

  beforeAll(async () => {
    opened = await openTestStore(engine);
    store = opened.store;
  });
  afterAll(() => opened.destroy());

  /** A run executing its version `versions` (each version with one step row), approved, with `tokens` of usage. */
  const executingRun = async (versions: number, tokens: number) => {
    const run = await store.createRun({ task: 'read', requester: 'U1', conversation: { channel: 'C1', threadTs: `1800.${++seq}` }, origin: 'mention' });
    for (let v = 1; v <= versions; v++) {
      const version = await store.addPlanVersion({
        runId: run.id,
        plan: plan(`tool_v${v}`),
        authorKind: 'planner',
        authorId: 'm',
        parentVersion: null,
        reason: null,
      });
      await store.createSteps(run.id, version.version, [
        { stepId: 's1', kind: 'forward', title: 'Read', tool: `tool_v${v}`, risk: 'read', dependsOn: [], plannedArgs: { key: 'x' } },
      ]);
      await store.recordApproval({ runId: run.id, planVersion: version.version, userId: 'U2', decision: 'approved', need: 'approver' });
    }
    await store.updateRun(run.id, { currentPlanVersion: versions, status: 'executing' });
    if (tokens) await store.recordUsage({ runId: run.id, role: 'evaluator', provider: 'p', model: 'm', inputTokens: tokens - 1, outputTokens: 1, costUsd: 0 });
    return run;
  };

  it('answers each run as its own reads would, for many runs in one call', async () => {
    const first = await executingRun(1, 0);
    const second = await executingRun(2, 40);
    const held = await store.openEscalation({ runId: second.id, planVersion: 2, stepId: 's1', kind: 'step-failed', message: 'failed' });
    const answered = await store.openEscalation({ runId: second.id, planVersion: 1, stepId: 's1', kind: 'step-failed', message: 'failed' });
    expect(await store.resolveEscalation({ id: answered.id, action: 'skip', userId: 'U2' })).toBe(true);
    const openings = await store.passOpenings([first.id, second.id, 'run_missing']);
    expect(openings.map((opening) => opening.run.id).sort()).toEqual([first.id, second.id].sort());
    for (const run of [first, second]) {
      const opening = openings.find((o) => o.run.id === run.id)!;
      expect(opening.run).toEqual(await store.getRun(run.id));
      expect(opening.version).toEqual(await store.getPlanVersion(run.id, opening.run.currentPlanVersion!));
      expect(opening.approvals).toEqual(await store.listApprovals(run.id));
      expect(opening.steps).toEqual(await store.listSteps(run.id));
      const usage = await store.usageTotals(run.id);
      expect(opening.tokens).toBe(usage.inputTokens + usage.outputTokens);
    }
    const secondOpening = openings.find((o) => o.run.id === second.id)!;
    expect(secondOpening.version?.plan.steps[0]?.tool).toBe('tool_v2');
    expect(secondOpening.steps.map((step) => `v${step.planVersion} ${step.stepId}`)).toEqual(['v1 s1', 'v2 s1']);
    expect(secondOpening.escalations).toEqual([{ planVersion: 2, stepId: 's1', status: 'open' }]);
    expect(secondOpening.tokens).toBe(40);
    expect(held.status).toBe('open');
  });

  it('reads only the run of a run that is not executing', async () => {
    const run = await executingRun(1, 5);
    expect(await store.transitionRun(run.id, ['executing'], 'paused')).toBe(true);
    const [opening] = await store.passOpenings([run.id]);
    expect(opening).toEqual({ run: await store.getRun(run.id), version: undefined, approvals: [], steps: [], escalations: [], tokens: 0 });
  });

  it('gives each run its token total, and 0 to a run without usage', async () => {
    const used = await executingRun(1, 12);
    const unused = await executingRun(1, 0);
    const totals = await store.tokensOf([used.id, unused.id]);
    expect(totals.get(used.id)).toBe(12);
    expect(totals.get(unused.id) ?? 0).toBe(0);
  });
});
