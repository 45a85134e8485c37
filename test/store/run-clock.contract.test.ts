/**
 * What a run's clock reads besides its start (OpeningsPort `clockFactsOf`, decision 055): every wait for a person
 * with the stored times it opened and ended, and when the run's steps ran, for many runs in one call. Memory,
 * PGlite, and PostgreSQL with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TimeSpan } from '../../src/agent/model/budgets.ts';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { openTestStore, STORE_ENGINES, type TestStore } from '../helpers/store.ts';

const plan: Plan = {
  schemaVersion: 1,
  goal: 'read then write',
  confidence: 0.9,
  steps: [
    { id: 's1', title: 'Read', tool: 'read_thing', args: { key: 'x' }, dependsOn: [] },
    { id: 's2', title: 'Write', tool: 'write_thing', args: { key: 'y' }, dependsOn: [] },
  ],
  rollback: [],
};

const byStart = (spans: readonly TimeSpan[]) =>
  [...spans].sort((a, b) => a.from.getTime() - b.from.getTime() || (a.to?.getTime() ?? 0) - (b.to?.getTime() ?? 0));

describe.each(STORE_ENGINES)('the run clock facts on %s', (engine) => {
  let opened: TestStore;
  let store: RunStore;
  let seq = 0;

  beforeAll(async () => {
    opened = await openTestStore(engine);
    store = opened.store;
  });
  afterAll(() => opened.destroy());

  /** A run executing its approved version 1 (steps s1, s2), whose s1 ran once and failed. */
  const approvedRun = async () => {
    const run = await store.createRun({ task: 'do', requester: 'U1', conversation: { channel: 'C1', threadTs: `1900.${++seq}` }, origin: 'mention' });
    await addVersion(run.id);
    await store.recordApproval({ runId: run.id, planVersion: 1, userId: 'U2', decision: 'approved', need: 'approver' });
    await store.updateRun(run.id, { currentPlanVersion: 1, status: 'executing' });
    const claimed = await store.claimStep({ runId: run.id, planVersion: 1, stepId: 's1', owner: 'A', leaseMs: 30_000, executedArgs: { key: 'x' } });
    await store.finishStep({ runId: run.id, planVersion: 1, stepId: 's1', attempt: claimed!.attempt, status: 'failed', error: { message: 'no' } });
    return run;
  };

  const addVersion = async (runId: string) => {
    const version = await store.addPlanVersion({ runId, plan, authorKind: 'planner', authorId: 'm', parentVersion: null, reason: null });
    await store.createSteps(
      runId,
      version.version,
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
    return version;
  };

  const attemptsOf = async (runId: string) => (await store.listAttempts(runId)).map((a) => ({ from: a.startedAt, to: a.finishedAt }));

  it('reads each answered wait from its opening to its answer, and the steps that ran, for many runs at once', async () => {
    const run = await approvedRun();
    const escalation = await store.openEscalation({ runId: run.id, planVersion: 1, stepId: 's1', kind: 'step-failed', message: 'failed' });
    await store.resolveEscalation({ id: escalation.id, action: 'retry', userId: 'U2' });
    await store.openQuestion({ runId: run.id, stepId: 's2', planVersion: 1, question: 'which?' });
    const question = await store.answerQuestion({ runId: run.id, answer: 'that', userId: 'U2' });
    const asked = await store.requestConfirmation({
      runId: run.id,
      planVersion: 1,
      stepId: 's2',
      tool: 'write_thing',
      risk: 'write',
      targets: { key: 'y' },
      lateBound: ['key'],
      owe: { id: `${run.id}/confirm/s2`, kind: 'confirm', payload: {} },
      owner: 'A',
      leaseMs: 30_000,
    });
    const confirmed = await store.decideConfirmation({ runId: run.id, planVersion: 1, stepId: 's2', userId: 'U2', decision: 'confirmed' });
    const quiet = await approvedRun();

    const facts = await store.clockFactsOf([run.id, quiet.id, 'run_missing']);
    const resolved = (await store.getEscalation(escalation.id))!;
    expect(byStart(facts.get(run.id)!.waits)).toEqual(
      byStart([
        { from: resolved.createdAt, to: resolved.resolvedAt },
        { from: question!.createdAt, to: question!.answeredAt },
        { from: asked!.createdAt, to: confirmed!.decidedAt },
      ]),
    );
    expect(facts.get(run.id)!.working).toEqual(await attemptsOf(run.id));
    // A run nobody was waited for reads nothing: its clock is the wall clock.
    expect(facts.has(quiet.id)).toBe(false);
    expect(facts.has('run_missing')).toBe(false);
  });

  it('a wait still open has no end; a question a new version replaced ends then; a new version waits for its approval', async () => {
    const run = await approvedRun();
    const open = await store.openEscalation({ runId: run.id, planVersion: 1, stepId: 's1', kind: 'step-failed', message: 'failed' });
    const question = await store.openQuestion({ runId: run.id, stepId: 's2', planVersion: 1, question: 'which?' });
    const replanned = await addVersion(run.id);

    const [first] = (await store.clockFactsOf([run.id])).values();
    expect(byStart(first!.waits)).toEqual(
      byStart([
        { from: open.createdAt, to: null },
        { from: question.createdAt, to: replanned.createdAt },
        { from: replanned.createdAt, to: null },
      ]),
    );

    const approval = await store.recordApproval({ runId: run.id, planVersion: replanned.version, userId: 'U2', decision: 'approved', need: 'approver' });
    const after = (await store.clockFactsOf([run.id])).get(run.id)!;
    expect(after.waits).toContainEqual({ from: replanned.createdAt, to: approval.createdAt });
  });
});
