import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { auditRuns } from '../../src/audit/audit.ts';
import { createRunStore, pruneFinishedRuns } from '../../src/store/index.ts';
import { ENGINES, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

const plan = {
  schemaVersion: 1 as const,
  goal: 'Comment on the pull request',
  confidence: 0.9,
  steps: [{ id: 's1', title: 'Comment', tool: 'github_comment', args: { repo: 'acme/api', number: 7, body: 'hi' }, dependsOn: [] }],
  rollback: [],
};
const DAY = 86_400_000;
const auditContext = { riskOf: () => 'write' as const, toolOf: () => undefined, isApprover: () => true };

describe.each(ENGINES)('tandem prune on %s', (engine) => {
  let database: TestDatabase;
  let store: RunStore;
  let thread = 0;
  beforeAll(async () => {
    database = await openTestDatabase(engine);
    store = createRunStore(database.db);
  });
  afterAll(() => database.destroy());

  /** A run that commented once and ended `status`, `daysAgo` days ago. */
  async function ranRun(status: 'succeeded' | 'executing', daysAgo: number) {
    const run = await store.createRun({ task: 'comment', requester: 'U1', conversation: { channel: 'C1', threadTs: `2.${++thread}` }, origin: 'mention' });
    const { version } = await store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'm', parentVersion: null, reason: null });
    await store.createSteps(run.id, version, [
      { stepId: 's1', kind: 'forward', title: 'Comment', tool: 'github_comment', risk: 'write', dependsOn: [], plannedArgs: plan.steps[0]!.args },
    ]);
    await store.updateRun(run.id, { currentPlanVersion: version, status: 'executing' });
    await store.recordApproval({ runId: run.id, planVersion: version, userId: 'U2', decision: 'approved', need: 'approver' });
    const claimed = await store.claimStep({
      runId: run.id,
      planVersion: version,
      stepId: 's1',
      owner: 'me',
      leaseMs: 30_000,
      executedArgs: plan.steps[0]!.args,
    });
    await store.finishStep({
      runId: run.id,
      planVersion: version,
      stepId: 's1',
      attempt: claimed!.attempt,
      status: 'succeeded',
      output: { url: 'https://github.test/acme/api/pull/7#c1' },
    });
    await store.appendEvent(run.id, 'escalation-resolved', { escalationId: 'esc_1', action: 'skip', by: 'U2' });
    // A call an agent_task made: the audit checks it against TANDEM_REPOS, so pruning keeps it.
    await store.appendEvent(run.id, 'agent-call', {
      planVersion: version,
      stepId: 's1',
      attempt: 1,
      index: 0,
      tool: 'github_get_repo',
      args: { repo: 'other/x' },
      ok: true,
    });
    // A Confirm's grant: the audit judges the confirmer by the policy it names, so pruning keeps it too.
    await store.appendEvent(run.id, 'target-confirmed', {
      planVersion: version,
      stepId: 's1',
      by: 'U2',
      targets: { repo: 'acme/api', number: 7 },
      policy: { hash: 'a'.repeat(64), rules: ['ops-confirm'], groups: ['SOPS'] },
    });
    if (status !== 'executing') await store.updateRun(run.id, { status, finishedAt: new Date(Date.now() - daysAgo * DAY) });
    return run.id;
  }

  it('removes an old finished run’s events and outputs, keeps what the audit reads, and leaves recent and open runs alone', async () => {
    const old = await ranRun('succeeded', 40);
    const recent = await ranRun('succeeded', 2);
    const open = await ranRun('executing', 0);
    const auditBefore = await auditRuns(store, auditContext);
    const eventsBefore = await Promise.all([old, recent, open].map((id) => store.listEvents(id)));
    expect(eventsBefore[0]!.length).toBeGreaterThan(0);

    const pruned = await pruneFinishedRuns(database.db, new Date(Date.now() - 30 * DAY));
    const audited = eventsBefore[0]!.filter((event) => event.type === 'agent-call' || event.type === 'target-confirmed');
    expect(audited).toHaveLength(2);
    expect(pruned).toMatchObject({ runs: 1, events: eventsBefore[0]!.length - 2, outputs: 2 });

    expect(await store.listEvents(old)).toEqual(audited);
    expect((await store.listSteps(old))[0]).toMatchObject({ status: 'succeeded', output: null });
    expect((await store.listAttempts(old))[0]).toMatchObject({ executedArgs: plan.steps[0]!.args });
    expect(await store.listApprovals(old)).toHaveLength(1);
    expect(await store.listPlanVersions(old)).toHaveLength(1);
    expect(await store.listEvents(recent)).toEqual(eventsBefore[1]);
    expect(await store.listEvents(open)).toEqual(eventsBefore[2]);
    expect(await auditRuns(store, auditContext)).toEqual(auditBefore);

    // Once is enough: the same cut-off prunes nothing more.
    expect(await pruneFinishedRuns(database.db, new Date(Date.now() - 30 * DAY))).toEqual({ runs: 0, events: 0, outputs: 0, messages: 0 });
  });
});
