import { beforeAll, describe, expect, it } from 'vitest';
import { joinedClaims } from '../../src/agent/execution/joined-claims.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { createMemoryRunStore } from '../../src/agent/testing/memory-store/index.ts';

const plan = {
  schemaVersion: 1 as const,
  goal: 'chain',
  confidence: 1,
  steps: [
    { id: 'a', title: 'A', tool: 'read_a', args: {}, dependsOn: [] },
    { id: 'b', title: 'B', tool: 'read_b', args: {}, dependsOn: ['a'] },
  ],
  rollback: [],
};

describe('joined claims: a dependant never starts before the success it depends on is stored', () => {
  let store: RunStore;
  let thread = 0;
  beforeAll(() => {
    store = createMemoryRunStore();
  });

  const runningA = async () => {
    const run = await store.createRun({ task: 'chain', requester: 'U1', conversation: { channel: 'C1', threadTs: `1.${++thread}` }, origin: 'cli' });
    const { version } = await store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'm', parentVersion: null, reason: null });
    await store.createSteps(
      run.id,
      version,
      plan.steps.map((step) => ({
        stepId: step.id,
        kind: 'forward',
        title: step.title,
        tool: step.tool,
        risk: 'read',
        dependsOn: step.dependsOn,
        plannedArgs: {},
      })),
    );
    await store.updateRun(run.id, { currentPlanVersion: version, status: 'executing' });
    await store.recordApproval({ runId: run.id, planVersion: version, userId: 'U2', decision: 'approved' });
    const a = await store.claimStep({ runId: run.id, planVersion: version, stepId: 'a', owner: 'me', leaseMs: 30_000, executedArgs: {} });
    const finish = { runId: run.id, planVersion: version, stepId: 'a', attempt: a!.attempt, status: 'succeeded' as const, output: { ok: true } };
    const claimB = { runId: run.id, planVersion: version, stepId: 'b', owner: 'me', leaseMs: 30_000, executedArgs: {} };
    return { run, version, finish, claimB };
  };
  const statuses = async (runId: string) => Object.fromEntries((await store.listSteps(runId)).map((step) => [step.stepId, step.status]));

  it('a claim that comes in time goes with the finish: both are stored together', async () => {
    const { run, finish, claimB } = await runningA();
    const writes = joinedClaims(store);
    const finished = writes.finishWith(finish, ['b']);
    const claimed = await writes.claimStep(claimB);
    expect(await finished).toBe(true);
    expect(claimed).toMatchObject({ stepId: 'b', status: 'running' });
    expect(await statuses(run.id)).toEqual({ a: 'succeeded', b: 'running' });
  });

  it('a dependant that never claims does not hold the finish up; one that claims late is claimed after the finish is stored', async () => {
    const { run, finish, claimB } = await runningA();
    const writes = joinedClaims(store);
    expect(await writes.finishWith(finish, ['b'])).toBe(true);
    expect(await statuses(run.id)).toEqual({ a: 'succeeded', b: 'pending' });
    expect(await writes.claimStep(claimB)).toMatchObject({ stepId: 'b', status: 'running' });
  });

  it('when the finish does not store (someone moved the step), the dependant is not claimed, joined or late', async () => {
    const { run, finish, claimB } = await runningA();
    const writes = joinedClaims(store);
    const joined = joinedClaims(store);
    const moved = { ...finish, attempt: finish.attempt + 1 };
    const [finishedJoined, claimedJoined] = await Promise.all([joined.finishWith(moved, ['b']), joined.claimStep(claimB)]);
    expect([finishedJoined, claimedJoined]).toEqual([false, undefined]);
    expect(await writes.finishWith(moved, ['b'])).toBe(false);
    expect(await writes.claimStep(claimB)).toBeUndefined();
    expect(await statuses(run.id)).toEqual({ a: 'running', b: 'pending' });
  });
});
