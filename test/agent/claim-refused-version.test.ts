/**
 * A driver whose claim is refused because the run moved on under it (another version became current, or the
 * run left `executing`) looks at the run instead of starting the step again: it used to start it again and
 * again until the step budget ended the run ("the step budget is spent"), with the new version never run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import type { ToolContext } from '../../src/agent/ports/tool.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { fakeTool } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useMemoryStore();
let h: Harness;
afterEach(() => {
  h.llm.assertDone();
});

const chain = plannerAnswer({
  steps: [
    { id: 'a', tool: 'read_thing', args: { key: 'a' } },
    { id: 'b', tool: 'read_thing', args: { key: 'b' }, dependsOn: ['a'] },
  ],
});

const newVersion: Plan = {
  schemaVersion: 1,
  goal: 'the new plan',
  confidence: 1,
  steps: [{ id: 'c', title: 'read c', tool: 'read_thing', args: { key: 'c' }, dependsOn: [] }],
  rollback: [],
};

/** While step `a` runs, someone else makes version 2 the run's current one (and, with `then`, more). */
function movesOnDuringA(store: RunStore, then?: (runId: string) => Promise<void>) {
  return fakeTool({
    name: 'read_thing',
    risk: 'read',
    run: async (args: Record<string, unknown>, ctx: ToolContext) => {
      if (args.key === 'a') {
        await store.addPlanVersion({
          runId: ctx.runId,
          plan: newVersion,
          authorKind: 'planner',
          authorId: 'elsewhere',
          parentVersion: 1,
          reason: null,
          proposed: {},
        });
        await then?.(ctx.runId);
      }
      return { status: 'ok', output: { ok: true } };
    },
  });
}

describe('a claim refused because the run moved on', () => {
  it('follows the version that became current instead of retrying the old one until the budget stops the run', async () => {
    const read = movesOnDuringA(db.store, async (runId) => {
      await db.store.recordApproval({ runId, planVersion: 2, userId: 'UAPPROVER', decision: 'approved', via: 'auto', need: 'anyone' });
    });
    h = makeHarness({ store: db.store, tools: [read], llm: new ScriptedLlm().on('planner', chain), settings: { autoRunReadOnly: true } });
    const run = await h.start();
    expect(read.calls.map((call) => call.stepId)).toEqual(['a', 'c']);
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
    const steps = await h.store.listSteps(run.id);
    expect(steps.map((step) => `v${step.planVersion} ${step.stepId}: ${step.status}, ${step.attempt} attempts`)).toEqual([
      'v1 a: succeeded, 1 attempts',
      'v1 b: pending, 0 attempts',
      'v2 c: succeeded, 1 attempts',
    ]);
    expect(h.errors).toEqual([]);
  });

  it('stops, writing nothing more, when the run left executing', async () => {
    const read = movesOnDuringA(db.store, async (runId) => {
      expect(await db.store.transitionRun(runId, ['executing'], 'awaiting-approval')).toBe(true);
    });
    h = makeHarness({ store: db.store, tools: [read], llm: new ScriptedLlm().on('planner', chain), settings: { autoRunReadOnly: true } });
    const run = await h.start();
    expect(read.calls.map((call) => call.stepId)).toEqual(['a']);
    const after = await h.store.getRun(run.id);
    expect(after?.status).toBe('awaiting-approval');
    expect(after?.currentPlanVersion).toBe(2);
    const b = (await h.store.listSteps(run.id)).find((step) => step.stepId === 'b');
    expect(b).toMatchObject({ status: 'pending', attempt: 0 });
    expect((await h.store.listEvents(run.id)).map((event) => event.type)).not.toContain('run-finished');
    expect(h.errors).toEqual([]);
  });
});
