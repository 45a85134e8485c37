/**
 * A board drawn from the store, and a run's summary, read the run in one statement each and take from its event
 * log only the checks' verdicts (`step-evaluated`), not the whole log: the board source answers what the separate
 * reads would, and both sources' verdicts are the run's `step-evaluated` events, in order, and nothing else. The
 * summary's source also says whether a Confirm was ever asked.
 * Memory, PGlite, and PostgreSQL with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { openTestStore, STORE_ENGINES, type TestStore } from '../helpers/store.ts';

const plan = (goal: string): Plan => ({
  schemaVersion: 1,
  goal,
  confidence: 0.9,
  steps: [{ id: 's1', title: 'Read', tool: 'github_get_repo', args: { repo: 'acme/api' }, dependsOn: [] }],
  rollback: [],
});

describe.each(STORE_ENGINES)('board source on %s', (engine) => {
  let opened: TestStore;
  let store: RunStore;
  let seq = 0;

  beforeAll(async () => {
    opened = await openTestStore(engine);
    store = opened.store;
  });
  afterAll(() => opened.destroy());

  const newRun = () => store.createRun({ task: 'read', requester: 'U1', conversation: { channel: 'C1', threadTs: `1900.${++seq}` }, origin: 'mention' });
  const addVersion = async (runId: string, goal: string, withSteps: boolean) => {
    const version = await store.addPlanVersion({ runId, plan: plan(goal), authorKind: 'planner', authorId: 'm', parentVersion: null, reason: null });
    if (withSteps)
      await store.createSteps(runId, version.version, [
        { stepId: 's1', kind: 'forward', title: 'Read', tool: 'github_get_repo', risk: 'read', dependsOn: [], plannedArgs: { repo: 'acme/api' } },
      ]);
    return version;
  };
  const evaluated = (runId: string, planVersion: number, verdict: 'pass' | 'uncertain') =>
    store.appendEvent(runId, 'step-evaluated', { runId, planVersion, stepId: 's1', verdict, reason: `was ${verdict}`, by: 'model' });

  it('reads the run, its steps, the newest version with forward steps and its verdicts in one call, as the separate reads give them', async () => {
    const run = await newRun();
    await addVersion(run.id, 'first', true);
    await evaluated(run.id, 1, 'uncertain');
    await store.appendEvent(run.id, 'run-paused', { reason: 'between the verdicts' });
    await addVersion(run.id, 'second', true);
    await evaluated(run.id, 2, 'pass');
    // A third version proposed, not run: the board draws the second and names the third as what replaced it.
    await addVersion(run.id, 'third', false);
    await store.updateRun(run.id, { currentPlanVersion: 3, status: 'awaiting-approval' });

    const source = await store.boardSource(run.id);
    const events = await store.listEvents(run.id);
    expect(source).toEqual({
      run: await store.getRun(run.id),
      steps: await store.listSteps(run.id),
      ran: await store.getPlanVersion(run.id, 2),
      evaluations: events.filter((event) => event.type === 'step-evaluated'),
    });
    expect(source?.evaluations.map((event) => (event.type === 'step-evaluated' ? event.data.verdict : undefined))).toEqual(['uncertain', 'pass']);
    expect((await store.summarySource(run.id))?.evaluations).toEqual(source?.evaluations);
  });

  it('answers a run without steps with no version, and a run that does not exist with nothing', async () => {
    const run = await newRun();
    await addVersion(run.id, 'planned only', false);
    expect(await store.boardSource(run.id)).toMatchObject({ run: { id: run.id }, steps: [], ran: undefined, evaluations: [] });
    expect((await store.summarySource(run.id))?.evaluations).toEqual([]);
    expect(await store.boardSource('run_missing')).toBeUndefined();
  });

  it("says whether some step of the run asked for a Confirm, whatever became of it (a run's end sweeps its buttons)", async () => {
    const run = await newRun();
    const { version } = await addVersion(run.id, 'confirm', true);
    await store.updateRun(run.id, { currentPlanVersion: version, status: 'executing' });
    expect((await store.summarySource(run.id))?.confirmsAsked).toBe(false);
    await store.requestConfirmation({
      runId: run.id,
      planVersion: version,
      stepId: 's1',
      tool: 'github_get_repo',
      risk: 'write',
      targets: { repo: 'acme/api' },
      lateBound: ['repo'],
      owe: { id: `${run.id}/confirm/s1`, kind: 'confirm', payload: {} },
      owner: 'A',
      leaseMs: 30_000,
    });
    expect((await store.summarySource(run.id))?.confirmsAsked).toBe(true);
    await store.decideConfirmation({ runId: run.id, planVersion: version, stepId: 's1', userId: 'U2', decision: 'aborted' });
    expect((await store.summarySource(run.id))?.confirmsAsked).toBe(true);
  });
});
