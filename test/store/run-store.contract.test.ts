import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { person, words } from '../../src/agent/text/text.ts';
import { leaseLagSeconds, markSlackEventSeen } from '../../src/store/index.ts';
import { openTestStore, STORE_ENGINES, type TestStore } from '../helpers/store.ts';

const plan = {
  schemaVersion: 1 as const,
  goal: 'Cut release v2.4.0',
  confidence: 0.8,
  steps: [
    { id: 's1', title: 'Read repo', tool: 'github_get_repo', args: { repo: 'acme/api' }, dependsOn: [] },
    { id: 's2', title: 'Release', tool: 'github_create_release', args: { repo: 'acme/api', tag: 'v2.4.0' }, dependsOn: ['s1'] },
  ],
  rollback: [],
};

// The in-memory store (src/agent/testing/memory-store), which the agent's unit tests use, holds to the same contract.
describe.each(STORE_ENGINES)('run store contract on %s', (engine) => {
  let opened: TestStore;
  let store: RunStore;
  let conversationSeq = 0;

  beforeAll(async () => {
    opened = await openTestStore(engine);
    store = opened.store;
  });
  afterAll(() => opened.destroy());

  const newRun = () =>
    store.createRun({
      task: 'cut release v2.4.0 of acme/api',
      requester: 'U1',
      conversation: { channel: 'C1', threadTs: `1700.${++conversationSeq}` },
      origin: 'mention',
    });

  const withPlannedSteps = async () => {
    const run = await newRun();
    const version = await store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'openai:gpt-4o', parentVersion: null, reason: null });
    await store.createSteps(run.id, version.version, [
      { stepId: 's1', kind: 'forward', title: 'Read repo', tool: 'github_get_repo', risk: 'read', dependsOn: [], plannedArgs: { repo: 'acme/api' } },
      {
        stepId: 's2',
        kind: 'forward',
        title: 'Release',
        tool: 'github_create_release',
        risk: 'write',
        dependsOn: ['s1'],
        plannedArgs: { repo: 'acme/api', tag: 'v2.4.0' },
      },
    ]);
    // Approved and executing: a step of any other version cannot be claimed.
    await store.updateRun(run.id, { currentPlanVersion: version.version, status: 'executing' });
    await store.recordApproval({ runId: run.id, planVersion: version.version, userId: 'U2', decision: 'approved', need: 'approver' });
    return { run, version: version.version };
  };

  it('keeps a run findable by its conversation and moves status only from the expected state', async () => {
    const run = await newRun();
    expect(run.status).toBe('planning');
    expect((await store.findRunByConversation(run.conversation))?.id).toBe(run.id);
    expect(await store.transitionRun(run.id, ['awaiting-approval'], 'executing')).toBe(false);
    expect(await store.transitionRun(run.id, ['planning'], 'awaiting-approval')).toBe(true);
    expect((await store.getRun(run.id))?.status).toBe('awaiting-approval');
    const listed = await store.listRuns({ limit: 50, requester: 'U1', statuses: ['awaiting-approval'] });
    expect(listed.map((r) => r.id)).toContain(run.id);
  });

  it('records run-created with the run when asked, as its first event', async () => {
    const created = { task: 'cut release', requester: 'U1', origin: 'mention' as const };
    const run = await store.createRun({
      task: 'cut release',
      requester: 'U1',
      conversation: { channel: 'C1', threadTs: `1700.${++conversationSeq}` },
      origin: 'mention',
      created,
    });
    expect(run).toMatchObject({ status: 'planning', task: 'cut release', currentPlanVersion: null, replans: 0, finishedAt: null });
    expect(run.createdAt).toBeInstanceOf(Date);
    await store.appendEvent(run.id, 'run-resumed', {});
    expect((await store.listEvents(run.id)).map((event) => [event.seq, event.type, event.data])).toEqual([
      [1, 'run-created', created],
      [2, 'run-resumed', {}],
    ]);
    // Without it, the run's log starts empty.
    expect(await store.listEvents((await newRun()).id)).toEqual([]);
  });

  it('makes a proposed version current and records plan-proposed in the same write; a version only added changes nothing else', async () => {
    const run = await newRun();
    const added = await store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'm', parentVersion: null, reason: null });
    expect((await store.getRun(run.id))?.currentPlanVersion).toBeNull();
    const reason = words`replan: ${person('U2')} asked`;
    const proposed = await store.addPlanVersion({
      runId: run.id,
      plan,
      authorKind: 'planner',
      authorId: 'm',
      parentVersion: added.version,
      reason,
      proposed: { replans: 3 },
    });
    expect(proposed).toMatchObject({ version: 2, parentVersion: 1, reason, authorKind: 'planner', plan: { goal: plan.goal } });
    expect(await store.getRun(run.id)).toMatchObject({ currentPlanVersion: 2, replans: 3 });
    expect((await store.listEvents(run.id)).map((event) => [event.seq, event.type, event.data])).toEqual([
      [1, 'plan-proposed', { version: 2, authorKind: 'planner', authorId: 'm', reason }],
    ]);
  });

  it('numbers plan versions per run and records who wrote each and who approved which', async () => {
    const run = await newRun();
    const v1 = await store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'openai:gpt-4o', parentVersion: null, reason: null });
    const edited = { ...plan, goal: 'Cut release v2.4.1' };
    const v2 = await store.addPlanVersion({ runId: run.id, plan: edited, authorKind: 'human', authorId: 'U2', parentVersion: 1, reason: 'edited in Slack' });
    expect([v1.version, v2.version]).toEqual([1, 2]);
    await store.recordApproval({ runId: run.id, planVersion: 2, userId: 'U3', decision: 'approved' });
    const versions = await store.listPlanVersions(run.id);
    expect(versions.map((v) => [v.version, v.authorKind, v.authorId, v.plan.goal])).toEqual([
      [1, 'planner', 'openai:gpt-4o', 'Cut release v2.4.0'],
      [2, 'human', 'U2', 'Cut release v2.4.1'],
    ]);
    expect(await store.listApprovals(run.id)).toMatchObject([{ planVersion: 2, userId: 'U3', decision: 'approved' }]);
  });

  it("creates a version's steps as pending with every field kept, and leaves steps that exist as they are", async () => {
    const { run, version } = await withPlannedSteps();
    const claimed = await store.claimStep({ runId: run.id, planVersion: version, stepId: 's1', owner: 'me', leaseMs: 30_000, executedArgs: {} });
    const again = { stepId: 's1', kind: 'forward' as const, title: 'Changed', tool: 'x', risk: 'write' as const, dependsOn: [], plannedArgs: {} };
    const added = {
      stepId: 's3',
      kind: 'rollback' as const,
      title: `Say "done" — it's \\ fine`,
      tool: 'slack_notify',
      risk: 'write' as const,
      dependsOn: ['s1', 's2'],
      plannedArgs: { text: 'v2.4.0 is out', nested: { list: [1, null, 'x'] } },
    };
    await store.createSteps(run.id, version, [again, added]);
    const listed = await store.listSteps(run.id, version);
    expect(listed.find((step) => step.stepId === 's1')).toMatchObject({ title: 'Read repo', status: 'running', attempt: claimed!.attempt });
    expect(listed.find((step) => step.stepId === 's3')).toMatchObject({ ...added, status: 'pending', attempt: 0, output: null, error: null });
  });

  it('lets exactly one of two connections claim the same step', async () => {
    const { run, version } = await withPlannedSteps();
    // A second, independent connection pool on PostgreSQL; PGlite and memory are one process, so concurrent calls on it.
    const other = await opened.connectAgain();
    try {
      const otherStore = other.store;
      const claims = await Promise.all([
        store.claimStep({
          runId: run.id,
          planVersion: version,
          stepId: 's2',
          owner: 'replica-a',
          leaseMs: 30_000,
          executedArgs: { repo: 'acme/api', tag: 'v2.4.0' },
        }),
        otherStore.claimStep({
          runId: run.id,
          planVersion: version,
          stepId: 's2',
          owner: 'replica-b',
          leaseMs: 30_000,
          executedArgs: { repo: 'acme/api', tag: 'v2.4.0' },
        }),
      ]);
      const winners = claims.filter(Boolean);
      expect(winners).toHaveLength(1);
      expect(winners[0]).toMatchObject({ status: 'running', attempt: 1 });
      expect(await store.listAttempts(run.id)).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('finishes a step and claims its dependant together, and claims nothing when the finish does not store', async () => {
    const { run, version } = await withPlannedSteps();
    const claimS1 = { runId: run.id, planVersion: version, owner: 'me', leaseMs: 30_000 };
    const s1 = await store.claimStep({ ...claimS1, stepId: 's1', executedArgs: { repo: 'acme/api' } });
    const finish = { runId: run.id, planVersion: version, stepId: 's1', attempt: s1!.attempt, status: 'succeeded' as const, output: { ok: true } };
    const s2 = { ...claimS1, stepId: 's2', executedArgs: { repo: 'acme/api', tag: 'v2.4.0' } };
    // A finish of an attempt that is not the live one stores nothing, and its dependant stays pending.
    expect(await store.finishStepAndClaim({ ...finish, attempt: 7 }, [s2])).toEqual({ finished: false, claimed: [] });
    expect((await store.listSteps(run.id, version)).map((step) => [step.stepId, step.status])).toEqual([
      ['s1', 'running'],
      ['s2', 'pending'],
    ]);
    const joined = await store.finishStepAndClaim(finish, [s2]);
    expect(joined.finished).toBe(true);
    expect(joined.claimed).toMatchObject([{ stepId: 's2', status: 'running', attempt: 1, leaseOwner: 'me' }]);
    expect((await store.listSteps(run.id, version)).map((step) => [step.stepId, step.status, step.output])).toEqual([
      ['s1', 'succeeded', { ok: true }],
      ['s2', 'running', null],
    ]);
    expect((await store.listAttempts(run.id)).map((attempt) => [attempt.stepId, attempt.status, attempt.executedArgs])).toEqual([
      ['s1', 'succeeded', { repo: 'acme/api' }],
      ['s2', 'running', { repo: 'acme/api', tag: 'v2.4.0' }],
    ]);
  });

  it("records a step's start and end in the same write as its transition, in order, and nothing for a transition that lost", async () => {
    const { run, version } = await withPlannedSteps();
    const key = { runId: run.id, planVersion: version };
    const claim = (stepId: string) => ({ ...key, stepId, owner: 'me', leaseMs: 30_000, executedArgs: {}, started: { kind: 'forward' as const, tool: 'x' } });
    const ended = (stepId: string, attempt: number) => ({ type: 'step-succeeded' as const, data: { ...key, stepId, kind: 'forward' as const, attempt } });
    await store.appendEvent(run.id, 'run-resumed', {});
    const s1 = await store.claimStep(claim('s1'));
    // Lost: a second claim of s1, a finish of an attempt that is not the live one.
    expect(await store.claimStep(claim('s1'))).toBeUndefined();
    expect(await store.finishStep({ ...key, stepId: 's1', attempt: 9, status: 'succeeded', output: {}, events: [ended('s1', 9)] })).toBe(false);
    const joined = await store.finishStepAndClaim({ ...key, stepId: 's1', attempt: s1!.attempt, status: 'succeeded', output: {}, events: [ended('s1', 1)] }, [
      claim('s2'),
    ]);
    expect(joined.claimed.map((step) => step.stepId)).toEqual(['s2']);
    const events = await store.listEvents(run.id);
    expect(events.map((event) => [event.seq, event.type, 'stepId' in event.data ? event.data.stepId : null])).toEqual([
      [1, 'run-resumed', null],
      [2, 'step-started', 's1'],
      [3, 'step-succeeded', 's1'],
      [4, 'step-started', 's2'],
    ]);
    expect(events[1]).toMatchObject({ type: 'step-started', data: { ...key, stepId: 's1', kind: 'forward', attempt: 1, tool: 'x' } });
    // The run's counter went on from there: a later append is numbered after them.
    expect((await store.appendEvent(run.id, 'run-resumed', {})).seq).toBe(5);
  });

  it('a joined claim keeps the claim gate: a step of a version that is not the one executing is finished but its dependant not claimed', async () => {
    const { run, version } = await withPlannedSteps();
    const s1 = await store.claimStep({ runId: run.id, planVersion: version, stepId: 's1', owner: 'me', leaseMs: 30_000, executedArgs: {} });
    // The run moved to another version meanwhile (an edit): nothing of this version may start.
    await store.updateRun(run.id, { currentPlanVersion: version + 1 });
    const joined = await store.finishStepAndClaim(
      { runId: run.id, planVersion: version, stepId: 's1', attempt: s1!.attempt, status: 'succeeded', output: {} },
      [{ runId: run.id, planVersion: version, stepId: 's2', owner: 'me', leaseMs: 30_000, executedArgs: {} }],
    );
    expect(joined).toEqual({ finished: true, claimed: [] });
    expect((await store.listSteps(run.id, version)).find((step) => step.stepId === 's2')?.status).toBe('pending');
  });

  it('sends each reminder once: of two connections claiming the same reminder, one wins', async () => {
    const run = await newRun();
    const other = await opened.connectAgain();
    try {
      const otherStore = other.store;
      const reminder = { runId: run.id, kind: 'approval-reminder', key: 'v1' };
      const claims = await Promise.all([store.claimReminder(reminder), otherStore.claimReminder(reminder)]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await store.claimReminder(reminder)).toBe(false);
      // Another key (the next plan version) is a new reminder.
      expect(await otherStore.claimReminder({ ...reminder, key: 'v2' })).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('gives a run lease to exactly one of two connections, lets an expired lease be taken, and renews only its own', async () => {
    const run = await newRun();
    const other = await opened.connectAgain();
    try {
      const otherStore = other.store;
      const claims = await Promise.all([
        store.claimRunLease({ runId: run.id, owner: 'replica-a', leaseMs: 30_000 }),
        otherStore.claimRunLease({ runId: run.id, owner: 'replica-b', leaseMs: 30_000 }),
      ]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      const [winner, loser] = claims[0] ? ['replica-a', 'replica-b'] : ['replica-b', 'replica-a'];
      expect(await store.claimRunLease({ runId: run.id, owner: winner, leaseMs: 30_000 })).toBe(true); // already ours
      expect(await store.claimRunLease({ runId: run.id, owner: loser, leaseMs: 30_000 })).toBe(false);
      expect(await store.renewLeases({ owner: loser, leaseMs: 30_000, runIds: [run.id] })).toEqual([]);
      expect(await store.renewLeases({ owner: winner, leaseMs: 30_000, runIds: [run.id] })).toEqual([run.id]);
      await store.releaseRunLease({ runId: run.id, owner: loser }); // not the holder: nothing changes
      expect(await store.claimRunLease({ runId: run.id, owner: loser, leaseMs: 30_000 })).toBe(false);

      // The holder stops renewing (it died): once the lease runs out, a peer takes it.
      const dying = await newRun();
      expect(await store.claimRunLease({ runId: dying.id, owner: 'replica-a', leaseMs: 1 })).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await otherStore.claimRunLease({ runId: dying.id, owner: 'replica-b', leaseMs: 30_000 })).toBe(true);
      expect(await store.renewLeases({ owner: 'replica-a', leaseMs: 30_000, runIds: [dying.id] })).toEqual([]);

      // A released lease is free at once, for adoption too.
      await store.transitionRun(run.id, ['planning'], 'executing');
      await store.releaseRunLease({ runId: run.id, owner: winner });
      const adopt = (owner: string) =>
        otherStore.adoptRuns({ owner, leaseMs: 30_000, statuses: ['executing'], limit: 100, graceMs: 60_000, skipLocked: true, ownUnexpired: false });
      expect((await adopt(loser)).map((r) => r.id)).toEqual([run.id]);
    } finally {
      await other.close();
    }
  });

  it('a live replica’s scan leaves a run it just created (still leased to it) alone; its start-up scan takes it', async () => {
    // The soak lost runs when a replica's periodic scan adopted the run it had just inserted, leased to itself,
    // before it counted the hold, and planned it a second time (decision 030).
    const run = await store.createRun({
      task: 't',
      requester: 'U1',
      conversation: { channel: 'C1', threadTs: `1700.${++conversationSeq}` },
      origin: 'mention',
      lease: { owner: 'replica-own', leaseMs: 30_000 },
    });
    const scan = (ownUnexpired: boolean) =>
      store.adoptRuns({ owner: 'replica-own', leaseMs: 30_000, statuses: ['planning'], limit: 100, graceMs: 0, skipLocked: !ownUnexpired, ownUnexpired });
    expect((await scan(false)).map((r) => r.id)).not.toContain(run.id);
    expect((await scan(true)).map((r) => r.id)).toContain(run.id);
    // Released (or run out), it is free to a periodic scan again, this replica's included.
    await store.releaseRunLease({ runId: run.id, owner: 'replica-own' });
    expect((await scan(false)).map((r) => r.id)).toContain(run.id);
  });

  it('renews the running steps of held runs with the run, and lets concurrent adopters take different runs', async () => {
    const { run, version } = await withPlannedSteps();
    expect(await store.claimRunLease({ runId: run.id, owner: 'replica-a', leaseMs: 1 })).toBe(true);
    await store.claimStep({ runId: run.id, planVersion: version, stepId: 's1', owner: 'replica-a', leaseMs: 1, executedArgs: { repo: 'acme/api' } });
    await store.renewLeases({ owner: 'replica-a', leaseMs: 60_000, runIds: [run.id] });
    const [s1] = await store.listSteps(run.id, version);
    expect(s1?.leaseUntil!.getTime()).toBeGreaterThan(Date.now() + 30_000);

    const orphans: string[] = [];
    for (let i = 0; i < 6; i++) {
      const orphan = await newRun();
      await store.transitionRun(orphan.id, ['planning'], i % 2 ? 'executing' : 'rolling-back');
      orphans.push(orphan.id);
    }
    const other = await opened.connectAgain();
    try {
      const otherStore = other.store;
      const adopt = (s: RunStore, owner: string) =>
        s.adoptRuns({ owner, leaseMs: 30_000, statuses: ['executing', 'rolling-back'], limit: 100, graceMs: 0, skipLocked: true, ownUnexpired: false });
      const [byA, byB] = await Promise.all([adopt(store, 'replica-c'), adopt(otherStore, 'replica-d')]);
      const adopted = [...byA, ...byB].map((r) => r.id);
      // Every orphan exactly once; the run replica-a keeps renewing is not among them.
      expect(adopted.filter((id) => orphans.includes(id)).sort()).toEqual([...orphans].sort());
      expect(new Set(adopted).size).toBe(adopted.length);
      expect(adopted).not.toContain(run.id);
      expect(await adopt(store, 'replica-e')).toEqual([]);
      // A run never leased that just moved is left to whoever moved it, for the grace period.
      const fresh = await newRun();
      await store.transitionRun(fresh.id, ['planning'], 'executing');
      expect(
        await store.adoptRuns({
          owner: 'replica-e',
          leaseMs: 30_000,
          statuses: ['executing'],
          limit: 100,
          graceMs: 60_000,
          skipLocked: true,
          ownUnexpired: false,
        }),
      ).toEqual([]);
      expect((await adopt(store, 'replica-e')).map((r) => r.id)).toEqual([fresh.id]);
    } finally {
      await other.close();
    }
  });

  it('records planned args, executed args and output as separate facts, and finishes only the live attempt', async () => {
    const { run, version } = await withPlannedSteps();
    const claimed = await store.claimStep({
      runId: run.id,
      planVersion: version,
      stepId: 's1',
      owner: 'me',
      leaseMs: 1000,
      executedArgs: { repo: 'acme/api' },
    });
    expect(claimed?.attempt).toBe(1);
    expect(await store.finishStep({ runId: run.id, planVersion: version, stepId: 's1', attempt: 2, status: 'succeeded', output: {} })).toBe(false);
    expect(
      await store.finishStep({
        runId: run.id,
        planVersion: version,
        stepId: 's1',
        attempt: 1,
        status: 'succeeded',
        output: { url: 'https://github.com/acme/api' },
      }),
    ).toBe(true);
    const [s1] = await store.listSteps(run.id, version);
    expect(s1).toMatchObject({ status: 'succeeded', plannedArgs: { repo: 'acme/api' }, output: { url: 'https://github.com/acme/api' } });
    expect(s1?.finishedAt).toBeInstanceOf(Date);
    const [attempt] = await store.listAttempts(run.id);
    expect(attempt).toMatchObject({ attempt: 1, status: 'succeeded', executedArgs: { repo: 'acme/api' } });

    // Retry: a failed step goes back to pending and the next claim is attempt 2.
    expect(
      await store.setStepStatus({ runId: run.id, planVersion: version, stepId: 's2', from: ['pending'], to: 'skipped', error: { message: 's1 failed' } }),
    ).toBe(true);
    expect(await store.setStepStatus({ runId: run.id, planVersion: version, stepId: 's2', from: ['pending'], to: 'cancelled' })).toBe(false);
  });

  it('puts interrupted attempts of several runs back in one write, each with its event, and leaves an attempt that moved on alone', async () => {
    const first = await withPlannedSteps();
    const second = await withPlannedSteps();
    const claim = (runId: string, planVersion: number) =>
      store.claimStep({ runId, planVersion, stepId: 's1', owner: 'dead', leaseMs: 1000, executedArgs: { repo: 'acme/api' } });
    await claim(first.run.id, first.version);
    await claim(second.run.id, second.version);
    const running = await store.listRunningSteps([first.run.id, second.run.id]);
    expect(running.map((step) => [step.runId, step.stepId, step.attempt]).sort()).toEqual(
      [
        [first.run.id, 's1', 1],
        [second.run.id, 's1', 1],
      ].sort(),
    );
    // The second run's attempt ends before the requeue reaches it: it is not touched.
    await store.finishStep({ runId: second.run.id, planVersion: second.version, stepId: 's1', attempt: 1, status: 'succeeded', output: {} });
    const before = (await store.listEvents(first.run.id)).length;

    const requeued = await store.requeueInterrupted(
      running.map(({ runId, planVersion, stepId, attempt }) => ({ runId, planVersion, stepId, attempt })),
      'a read step runs again',
    );

    expect(requeued).toEqual([{ runId: first.run.id, planVersion: first.version, stepId: 's1', attempt: 1 }]);
    const [s1] = await store.listSteps(first.run.id, first.version);
    expect(s1).toMatchObject({
      status: 'pending',
      attempt: 1,
      leaseOwner: null,
      finishedAt: null,
      error: { message: 'interrupted by a restart (a read step runs again)' },
    });
    expect((await store.listAttempts(first.run.id))[0]).toMatchObject({ attempt: 1, status: 'cancelled' });
    const events = await store.listEvents(first.run.id);
    expect(events.slice(before).map((event) => [event.type, event.data])).toEqual([
      ['step-requeued', { runId: first.run.id, planVersion: first.version, stepId: 's1', attempt: 1, why: 'a read step runs again' }],
    ]);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect((await store.listSteps(second.run.id, second.version))[0]?.status).toBe('succeeded');
    // The requeued step is claimed again as its next attempt.
    expect((await claim(first.run.id, first.version))?.attempt).toBe(2);
    expect(await store.listRunningSteps([])).toEqual([]);
  });

  it("appends one event to each of many runs in one write, each numbered on from its own run's log, and none for a run that does not exist", async () => {
    const [a, b] = [await newRun(), await newRun()];
    await store.appendEvent(a.id, 'run-paused', { reason: 'waiting for a person' });
    const adopted = (runId: string) => ({ runId, event: { type: 'run-adopted' as const, data: { by: 'me', status: 'executing' as const } } });
    await store.appendToRuns([adopted(a.id), adopted(b.id), adopted('no-such-run')]);
    for (const run of [a, b]) {
      const events = await store.listEvents(run.id);
      expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
      expect(events.at(-1)).toMatchObject({ type: 'run-adopted', data: { by: 'me', status: 'executing' } });
    }
  });

  it('moves a step only while its run is in the status asked for, when asked', async () => {
    const { run, version } = await withPlannedSteps();
    const requeue = () =>
      store.setStepStatus({ runId: run.id, planVersion: version, stepId: 's1', from: ['cancelled'], to: 'pending', error: null, whileRunIs: 'executing' });
    await store.setStepStatus({ runId: run.id, planVersion: version, stepId: 's1', from: ['pending'], to: 'cancelled', error: { message: 'stopped' } });
    await store.setStepStatus({ runId: run.id, planVersion: version, stepId: 's2', from: ['pending'], to: 'cancelled', error: { message: 'stopped' } });
    expect(await requeue()).toBe(true);
    expect((await store.listSteps(run.id, version)).find((step) => step.stepId === 's1')).toMatchObject({ status: 'pending', error: null, finishedAt: null });

    expect(await store.transitionRun(run.id, ['executing'], 'cancelled')).toBe(true);
    expect(await store.setStepStatus({ runId: run.id, planVersion: version, stepId: 's2', from: ['cancelled'], to: 'pending', whileRunIs: 'executing' })).toBe(
      false,
    );
    expect((await store.listSteps(run.id, version)).find((step) => step.stepId === 's2')?.status).toBe('cancelled');
  });

  it("reads what a run's summary is made of in one call, exactly as the separate reads give it", async () => {
    const { run, version } = await withPlannedSteps();
    await store.claimStep({ runId: run.id, planVersion: version, stepId: 's1', owner: 'me', leaseMs: 1000, executedArgs: { repo: 'acme/api' } });
    await store.finishStep({ runId: run.id, planVersion: version, stepId: 's1', attempt: 1, status: 'succeeded', output: { url: 'https://x.test/é "q"' } });
    await store.setStepStatus({ runId: run.id, planVersion: version, stepId: 's2', from: ['pending'], to: 'failed', error: { message: 'no', code: 'x' } });
    const v2 = await store.addPlanVersion({
      runId: run.id,
      plan: { ...plan, goal: 'Again' },
      authorKind: 'human',
      authorId: 'U2',
      parentVersion: version,
      reason: null,
    });
    await store.createSteps(run.id, v2.version, [
      { stepId: 's9', kind: 'forward', title: 'Other', tool: 'github_get_repo', risk: 'read', dependsOn: [], plannedArgs: { repo: 'acme/web' } },
    ]);
    await store.recordUsage({ runId: run.id, role: 'planner', provider: 'openai', model: 'gpt-4o', inputTokens: 1200, outputTokens: 300, costUsd: 0.1 });
    await store.recordUsage({ runId: run.id, role: 'planner', provider: 'openai', model: 'gpt-4o', inputTokens: 1, outputTokens: 2, costUsd: 0.2 });
    await store.recordUsage({ runId: run.id, role: 'evaluator', provider: 'anthropic', model: 'claude', inputTokens: 7, outputTokens: 8, costUsd: 0.3 });
    await store.appendEvent(run.id, 'planner-fallback', { planVersion: 1, author: 'anthropic:claude', reason: 'first' });
    await store.appendEvent(run.id, 'planner-fallback', { planVersion: 2, author: 'openai:gpt-4o', reason: 'second' });
    await store.appendEvent(run.id, 'run-paused', { reason: 'after the fallbacks' });

    const source = await store.summarySource(run.id);
    expect(source).toEqual({
      run: await store.getRun(run.id),
      steps: await store.listSteps(run.id),
      versions: await store.listPlanVersions(run.id),
      usage: await store.usageTotals(run.id),
      usageByModel: await store.usageByModel(run.id),
      lastFallback: (await store.listEvents(run.id)).filter((event) => event.type === 'planner-fallback').at(-1),
      evaluations: [],
      confirmsAsked: (await store.listConfirmations(run.id)).length > 0,
    });
    expect(source?.lastFallback?.data).toEqual({ planVersion: 2, author: 'openai:gpt-4o', reason: 'second' });
    expect(await store.summarySource('run_missing')).toBeUndefined();
    const bare = await newRun();
    expect(await store.summarySource(bare.id)).toMatchObject({
      steps: [],
      versions: [],
      usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      usageByModel: [],
      lastFallback: null,
      evaluations: [],
    });
  });

  it('keeps events gap-free and in order under concurrent appends', async () => {
    const run = await newRun();
    const other = await opened.connectAgain();
    try {
      const otherStore = other.store;
      await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? otherStore : store).appendEvent(run.id, 'run-paused', { reason: `append ${i}` })));
      const events = await store.listEvents(run.id);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(new Set(events.map((e) => (e.type === 'run-paused' ? e.data.reason : undefined))).size).toBe(40);
    } finally {
      await other.close();
    }
  });

  it('numbers a batch of events consecutively in the order given, gap-free alongside single appends from another connection', async () => {
    const run = await newRun();
    const other = await opened.connectAgain();
    try {
      const otherStore = other.store;
      const batches = Array.from({ length: 10 }, (_, b) => [0, 1, 2].map((i) => ({ type: 'run-paused' as const, data: { reason: `batch ${b} event ${i}` } })));
      const [stored] = await Promise.all([
        Promise.all(batches.map((batch) => store.appendEvents(run.id, batch))),
        Promise.all(Array.from({ length: 10 }, (_, i) => otherStore.appendEvent(run.id, 'run-paused', { reason: `single ${i}` }))),
      ]);
      const events = await store.listEvents(run.id);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      // Each batch is one write: its events are adjacent and in their given order, and the call returns them as stored.
      for (const [b, batch] of stored.entries()) {
        expect(batch.map((e) => e.data)).toEqual([0, 1, 2].map((i) => ({ reason: `batch ${b} event ${i}` })));
        expect(batch.map((e) => e.seq)).toEqual([0, 1, 2].map((i) => batch[0]!.seq + i));
      }
      expect(await store.appendEvents(run.id, [])).toEqual([]);
      await expect(store.appendEvents('run_missing', [{ type: 'run-paused', data: { reason: 'none' } }])).rejects.toThrow(/not found/);
    } finally {
      await other.close();
    }
  });

  it("keeps each wait's newest message, per run, so a board on any replica can link it", async () => {
    const run = await newRun();
    const other = await newRun();
    expect(await store.listWaitMessages(run.id)).toEqual([]);
    await store.recordWaitMessage({ runId: run.id, wait: 'escalation', key: 'esc_1', channel: 'C1', ts: '1700.1', permalink: 'https://slack.test/p1' });
    await store.recordWaitMessage({ runId: run.id, wait: 'confirm', key: 'v1/s2', channel: 'C1', ts: '1700.2', permalink: null });
    // A reminder's copy is the message to follow now.
    await store.recordWaitMessage({ runId: run.id, wait: 'escalation', key: 'esc_1', channel: 'C1', ts: '1700.3', permalink: 'https://slack.test/p3' });
    await store.recordWaitMessage({ runId: other.id, wait: 'escalation', key: 'esc_1', channel: 'C2', ts: '1800.1', permalink: null });
    const stored = await store.listWaitMessages(run.id);
    expect(stored.map(({ wait, key, ts, permalink }) => ({ wait, key, ts, permalink }))).toEqual(
      expect.arrayContaining([
        { wait: 'escalation', key: 'esc_1', ts: '1700.3', permalink: 'https://slack.test/p3' },
        { wait: 'confirm', key: 'v1/s2', ts: '1700.2', permalink: null },
      ]),
    );
    expect(stored).toHaveLength(2);
    expect(stored.every((row) => row.postedAt instanceof Date)).toBe(true);
    await expect(store.recordWaitMessage({ runId: 'run_missing', wait: 'question', key: 'q', channel: 'C1', ts: '1', permalink: null })).rejects.toThrow();
  });

  it('lists the open escalations of one kind across runs, oldest first, up to the limit', async () => {
    const [a, b] = [await newRun(), await newRun()];
    const open = (runId: string, kind: 'rollback-failed' | 'step-failed') =>
      store.openEscalation({ runId, planVersion: 1, stepId: 'r1', kind, message: 'undo failed' });
    const first = await open(a.id, 'rollback-failed');
    await open(a.id, 'step-failed');
    const second = await open(b.id, 'rollback-failed');
    const third = await open(b.id, 'rollback-failed');
    await store.resolveEscalation({ id: second.id, action: 'abort', userId: 'tandem:expired' });
    const listed = await store.listOpenEscalations({ kind: 'rollback-failed', limit: 10 });
    expect(listed.filter((x) => [a.id, b.id].includes(x.runId)).map((x) => x.id)).toEqual([first.id, third.id]);
    expect(await store.listOpenEscalations({ kind: 'rollback-failed', limit: 1 })).toHaveLength(1);
  });

  it('expires an open escalation once, with no action recorded, and no longer lists it open', async () => {
    const run = await newRun();
    const escalation = await store.openEscalation({ runId: run.id, planVersion: 1, stepId: 'r1', kind: 'rollback-failed', message: 'undo failed' });
    expect(await Promise.all([store.expireEscalation(escalation.id), store.expireEscalation(escalation.id)])).toEqual(expect.arrayContaining([true, false]));
    expect(await store.getEscalation(escalation.id)).toMatchObject({ status: 'expired', resolution: null, resolvedBy: null });
    expect((await store.getEscalation(escalation.id))?.resolvedAt).toBeInstanceOf(Date);
    expect((await store.listOpenEscalations({ kind: 'rollback-failed', limit: 100 })).map((x) => x.id)).not.toContain(escalation.id);
    // An escalation already answered is not expired over its answer.
    const answered = await store.openEscalation({ runId: run.id, planVersion: 1, stepId: 's2', kind: 'step-failed', message: 'failed' });
    await store.resolveEscalation({ id: answered.id, action: 'skip', userId: 'U1' });
    expect(await store.expireEscalation(answered.id)).toBe(false);
    expect(await store.getEscalation(answered.id)).toMatchObject({ status: 'resolved', resolution: 'skip' });
  });

  it('resolves an escalation once, answers the oldest question, and totals usage', async () => {
    const run = await newRun();
    const escalation = await store.openEscalation({ runId: run.id, planVersion: 1, stepId: 's2', kind: 'uncertain-side-effect', message: 'release may exist' });
    const results = await Promise.all([
      store.resolveEscalation({ id: escalation.id, action: 'retry', userId: 'U1' }),
      store.resolveEscalation({ id: escalation.id, action: 'abort', userId: 'U2' }),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await store.getEscalation(escalation.id))?.status).toBe('resolved');

    await store.openQuestion({ runId: run.id, stepId: 's1', planVersion: 1, question: 'Which env?' });
    await store.openQuestion({ runId: run.id, stepId: 's3', planVersion: 1, question: 'Which region?' });
    expect(await store.answerQuestion({ runId: run.id, answer: 'staging', userId: 'U1' })).toMatchObject({ stepId: 's1', answer: 'staging', answeredBy: 'U1' });
    expect((await store.listQuestions(run.id)).filter((q) => q.answeredAt === null)).toHaveLength(1);

    await store.recordUsage({ runId: run.id, role: 'planner', provider: 'openai', model: 'gpt-4o', inputTokens: 1200, outputTokens: 300, costUsd: 0.006 });
    await store.recordUsage({
      runId: run.id,
      role: 'evaluator',
      provider: 'openai',
      model: 'gpt-4o-mini',
      inputTokens: 100,
      outputTokens: 20,
      costUsd: 0.0001,
    });
    const totals = await store.usageTotals(run.id);
    expect(totals).toMatchObject({ inputTokens: 1300, outputTokens: 320 });
    expect(totals.costUsd).toBeCloseTo(0.0061, 6);
    await store.recordUsage({ runId: run.id, role: 'planner', provider: 'openai', model: 'gpt-4o', inputTokens: 10, outputTokens: 5, costUsd: 0.001 });
    expect(await store.usageByModel(run.id)).toEqual([
      { role: 'planner', model: 'openai:gpt-4o', inputTokens: 1210, outputTokens: 305, costUsd: expect.closeTo(0.007, 6) },
      { role: 'evaluator', model: 'openai:gpt-4o-mini', inputTokens: 100, outputTokens: 20, costUsd: expect.closeTo(0.0001, 6) },
    ]);
  });

  it("owes a run's messages to the writer first, hands them to others once its lease runs out, and never hands one over after it was sent", async () => {
    const run = await newRun();
    const owe = (id: string, owner: string, leaseMs: number) => store.owe({ runId: run.id, owe: [{ id, kind: 'notice', payload: { id } }], owner, leaseMs });
    await owe(`${run.id}/a`, 'A', 30_000);
    await owe(`${run.id}/a`, 'B', 1); // the same id twice is one message, still A's
    await owe(`${run.id}/b`, 'A', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // A peer sweeping every run gets only the one whose lease ran out; the writer gets its own run's, held or not.
    expect((await store.claimOwed({ owner: 'B', leaseMs: 30_000, all: false, limit: 10 })).filter((m) => m.runId === run.id).map((m) => m.id)).toEqual([
      `${run.id}/b`,
    ]);
    const mine = await store.claimOwed({ owner: 'A', leaseMs: 30_000, all: false, runId: run.id, limit: 10 });
    expect(mine).toMatchObject([{ id: `${run.id}/a`, kind: 'notice', payload: { id: `${run.id}/a` }, attempts: 1 }]);
    // A failed delivery is anyone's after its retry delay; a sent one is nobody's.
    await store.deferOwed({ id: `${run.id}/a`, retryInMs: 0 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await store.claimOwed({ owner: 'C', leaseMs: 30_000, all: false, runId: run.id, limit: 10 })).map((m) => [m.id, m.attempts])).toEqual([
      [`${run.id}/a`, 2],
    ]);
    await store.markOwedSent(`${run.id}/a`);
    await store.markOwedSent(`${run.id}/b`);
    expect(await store.claimOwed({ owner: 'D', leaseMs: 30_000, all: true, runId: run.id, limit: 10 })).toEqual([]);
  });

  it('ends a run once, with its event and what it owes; a second end finds it ended', async () => {
    const run = await store.createRun({
      task: 't',
      requester: 'U1',
      conversation: { channel: 'C1', threadTs: `1700.${++conversationSeq}` },
      origin: 'mention',
      requestId: `req-${conversationSeq}`,
      lease: { owner: 'A', leaseMs: 30_000 },
    });
    expect((await store.findRunByRequest(`req-${conversationSeq}`))?.id).toBe(run.id);
    expect(await store.claimRunLease({ runId: run.id, owner: 'B', leaseMs: 30_000 })).toBe(false); // its creator holds it
    const finish = () =>
      store.finishRun({
        runId: run.id,
        from: ['planning'],
        status: 'failed',
        summary: { outcome: 'failed', note: undefined },
        finishedAt: new Date(),
        event: { type: 'run-finished', data: { outcome: 'failed', reason: null } },
        owe: [{ id: `${run.id}/run-finished`, kind: 'run-finished', payload: {} }],
        owner: 'A',
        leaseMs: 30_000,
      });
    const [first, second] = await Promise.all([finish(), finish()]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect(await store.getRun(run.id)).toMatchObject({ status: 'failed', summary: { outcome: 'failed' } });
    expect((await store.getRun(run.id))?.summary).not.toHaveProperty('note');
    expect((await store.listEvents(run.id)).map((e) => [e.seq, e.type])).toEqual([[1, 'run-finished']]);
    expect((await store.claimOwed({ owner: 'A', leaseMs: 30_000, all: false, runId: run.id, limit: 10 })).map((m) => m.kind)).toEqual(['run-finished']);
  });

  it('holds a step for a Confirm of its targets, and releases it only for a decision on the current version of a run still going', async () => {
    const { run, version } = await withPlannedSteps();
    const request = (targets: Record<string, unknown>) =>
      store.requestConfirmation({
        runId: run.id,
        planVersion: version,
        stepId: 's2',
        tool: 'github_create_release',
        risk: 'write',
        targets,
        lateBound: ['tag'],
        owe: { id: `${run.id}/confirm/s2/${String(targets.tag)}`, kind: 'confirm', payload: {} },
        owner: 'A',
        leaseMs: 30_000,
      });
    const decide = (decision: 'confirmed' | 'aborted', planVersion = version) =>
      store.decideConfirmation({ runId: run.id, planVersion, stepId: 's2', userId: 'U2', decision });
    expect(await request({ repo: 'acme/api', tag: 'v1' })).toMatchObject({ status: 'pending', targets: { repo: 'acme/api', tag: 'v1' }, decidedBy: null });
    expect(await request({ repo: 'acme/api', tag: 'v1' })).toBeUndefined(); // the step no longer pending
    expect((await store.listSteps(run.id, version)).find((step) => step.stepId === 's2')).toMatchObject({
      status: 'waiting',
      error: { code: 'awaiting-confirmation' },
    });
    expect(await decide('confirmed', version + 1)).toBeUndefined();
    await store.updateRun(run.id, { status: 'awaiting-approval' });
    expect(await decide('confirmed')).toBeUndefined();
    await store.updateRun(run.id, { status: 'executing' });
    expect(await decide('confirmed')).toMatchObject({ status: 'confirmed', decidedBy: 'U2' });
    expect(await decide('aborted')).toBeUndefined(); // decided once
    expect((await store.listSteps(run.id, version)).find((step) => step.stepId === 's2')).toMatchObject({ status: 'pending', error: null });
    // Asked again for other values, the decided confirmation is replaced by a pending one.
    expect(await request({ repo: 'acme/api', tag: 'v2' })).toMatchObject({ status: 'pending', targets: { tag: 'v2' }, decidedAt: null });
    expect((await store.listConfirmations(run.id)).map((c) => [c.stepId, c.status, c.targets.tag])).toEqual([['s2', 'pending', 'v2']]);
  });

  it('answers a question once per request: the same request replayed answers nothing more', async () => {
    const run = await newRun();
    await store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'm', parentVersion: null, reason: null, proposed: {} });
    await store.updateRun(run.id, { status: 'awaiting-answer' });
    await store.openQuestion({ runId: run.id, stepId: null, planVersion: null, question: 'Which repo?' });
    await store.openQuestion({ runId: run.id, stepId: null, planVersion: null, question: 'Which tag?' });
    const answer = (requestId: string) =>
      store.answer({ runId: run.id, answer: 'acme/api', userId: 'U1', requestId, stepFrom: [], planFrom: ['awaiting-answer', 'planning'], planTo: 'planning' });
    expect(await answer('event:Ev1')).toMatchObject({ ok: true, run: { status: 'planning' }, value: { question: 'Which repo?', answer: 'acme/api' } });
    expect(await answer('event:Ev1')).toMatchObject({ ok: false, code: 'already-answered' });
    expect(await answer('event:Ev2')).toMatchObject({ ok: true, value: { question: 'Which tag?' } });
    expect((await store.listEvents(run.id)).filter((e) => e.type === 'question-answered').map((e) => e.data)).toMatchObject([
      { stepId: null, by: 'U1', requestId: 'event:Ev1' },
      { stepId: null, by: 'U1', requestId: 'event:Ev2' },
    ]);
  });

  // SQL beside the RunStore: the real engines only.
  it.skipIf(engine === 'memory')("reports how far an executing run's lease is overdue once its holder stops renewing", async () => {
    const run = await newRun();
    await store.updateRun(run.id, { status: 'executing' });
    expect(await store.claimRunLease({ runId: run.id, owner: 'gone', leaseMs: 1 })).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lag = await leaseLagSeconds(opened.database!.db);
    expect(lag).toBeGreaterThanOrEqual(0.25);
    expect(lag).toBeLessThan(60);
    await store.releaseRunLease({ runId: run.id, owner: 'gone' });
  });

  it('claims no step of a version without an approval, of a version that is not current, or of a run not executing', async () => {
    const claim = (runId: string, planVersion: number) => store.claimStep({ runId, planVersion, stepId: 's1', owner: 'me', leaseMs: 1000, executedArgs: {} });
    const unapproved = await newRun();
    const v1 = await store.addPlanVersion({ runId: unapproved.id, plan, authorKind: 'planner', authorId: 'm', parentVersion: null, reason: null });
    await store.createSteps(unapproved.id, v1.version, [
      { stepId: 's1', kind: 'forward', title: 'Read', tool: 'github_get_repo', risk: 'read', dependsOn: [], plannedArgs: {} },
    ]);
    await store.updateRun(unapproved.id, { currentPlanVersion: 1, status: 'executing' });
    expect(await claim(unapproved.id, 1)).toBeUndefined();
    await store.recordApproval({ runId: unapproved.id, planVersion: 1, userId: 'U2', decision: 'rejected' });
    expect(await claim(unapproved.id, 1)).toBeUndefined();

    const { run } = await withPlannedSteps();
    await store.addPlanVersion({ runId: run.id, plan, authorKind: 'human', authorId: 'U3', parentVersion: 1, reason: 'edited' });
    await store.updateRun(run.id, { currentPlanVersion: 2 });
    expect(await claim(run.id, 1)).toBeUndefined(); // approved, but replaced by v2
    await store.updateRun(run.id, { currentPlanVersion: 1, status: 'paused' });
    expect(await claim(run.id, 1)).toBeUndefined();
    await store.updateRun(run.id, { status: 'executing' });
    expect(await claim(run.id, 1)).toMatchObject({ status: 'running', attempt: 1 });
  });

  it('records a decision only while the run is in the expected status at the expected version, all facts together', async () => {
    const run = await newRun();
    await store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'm', parentVersion: null, reason: null });
    await store.updateRun(run.id, { currentPlanVersion: 1, status: 'awaiting-approval' });
    const escalation = await store.openEscalation({ runId: run.id, planVersion: 1, stepId: null, kind: 'low-confidence', message: 'unsure' });
    const approve = (planVersion: number, userId: string) =>
      store.decide({
        runId: run.id,
        planVersion,
        from: ['awaiting-approval'],
        to: 'executing',
        approval: { userId, decision: 'approved', need: 'approver' },
        alsoResolve: { kind: 'low-confidence', action: 'skip', userId },
        event: { type: 'plan-approved', data: { version: planVersion, by: userId } },
      });

    expect(await approve(2, 'U2')).toMatchObject({ ok: false, code: 'plan-changed', run: { currentPlanVersion: 1 } });
    expect(await store.decide({ runId: 'run_missing', planVersion: 1, from: ['awaiting-approval'], event: { type: 'run-resumed', data: {} } })).toEqual({
      ok: false,
      code: 'run-missing',
      run: undefined,
    });
    // Two connections decide at once: exactly one counts.
    const other = await opened.connectAgain();
    try {
      const otherStore = other.store;
      const decisions = await Promise.all([
        approve(1, 'U2'),
        otherStore.decide({
          runId: run.id,
          planVersion: 1,
          from: ['awaiting-approval'],
          to: 'rejected',
          approval: { userId: 'U3', decision: 'rejected' },
          event: { type: 'plan-rejected', data: { version: 1, by: 'U3' } },
        }),
      ]);
      expect(decisions.filter((d) => d.ok)).toHaveLength(1);
      expect(decisions.find((d) => !d.ok)).toMatchObject({ code: 'not-waiting' });
    } finally {
      await other.close();
    }
    const after = (await store.getRun(run.id))!;
    const approvals = await store.listApprovals(run.id);
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject(
      after.status === 'executing' ? { userId: 'U2', decision: 'approved', via: 'person', need: 'approver' } : { userId: 'U3', decision: 'rejected' },
    );
    expect((await store.listEvents(run.id)).map((e) => e.type)).toEqual([after.status === 'executing' ? 'plan-approved' : 'plan-rejected']);
    expect((await store.getEscalation(escalation.id))?.status).toBe(after.status === 'executing' ? 'resolved' : 'open');
  });

  it('records a decision that keeps the status with its event only, and a refused decision writes nothing', async () => {
    const run = await newRun();
    await store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'm', parentVersion: null, reason: null });
    await store.updateRun(run.id, { currentPlanVersion: 1, status: 'paused' });
    const before = (await store.getRun(run.id))!;
    const kept = await store.decide({ runId: run.id, planVersion: null, from: ['paused'], event: { type: 'run-resumed', data: {} } });
    expect(kept).toMatchObject({ ok: true, run: { status: 'paused', updatedAt: before.updatedAt } });
    const refusedOne = await store.decide({
      runId: run.id,
      planVersion: 1,
      from: ['awaiting-approval'],
      to: 'executing',
      approval: { userId: 'U2', decision: 'approved', need: 'approver' },
      event: { type: 'plan-approved', data: { version: 1, by: 'U2' } },
    });
    expect(refusedOne).toMatchObject({ ok: false, code: 'not-waiting', run: { status: 'paused' } });
    expect(await store.listApprovals(run.id)).toEqual([]);
    expect((await store.listEvents(run.id)).map((e) => [e.seq, e.type])).toEqual([[1, 'run-resumed']]);
    expect((await store.getRun(run.id))?.status).toBe('paused');
  });

  it("resolves an escalation in a decision only while it is open, and answers only the current version's question", async () => {
    const { run } = await withPlannedSteps();
    await store.updateRun(run.id, { status: 'paused' });
    const escalation = await store.openEscalation({ runId: run.id, planVersion: 1, stepId: 's2', kind: 'step-failed', message: 'boom' });
    const resolve = () =>
      store.decide({
        runId: run.id,
        planVersion: 1,
        from: ['paused'],
        escalation: { id: escalation.id, action: 'retry', userId: 'U2' },
        event: { type: 'escalation-resolved', data: { escalationId: escalation.id, action: 'retry', by: 'U2' } },
      });
    expect(await resolve()).toMatchObject({ ok: true, run: { status: 'paused' } });
    expect(await resolve()).toMatchObject({ ok: false, code: 'escalation-resolved' });

    await store.setStepStatus({ runId: run.id, planVersion: 1, stepId: 's1', from: ['pending'], to: 'waiting' });
    await store.openQuestion({ runId: run.id, stepId: 's1', planVersion: 1, question: 'Which env?' });
    const answer = (userId: string) =>
      store.answer({ runId: run.id, answer: 'staging', userId, stepFrom: ['executing', 'paused'], planFrom: ['awaiting-answer'], planTo: 'planning' });
    await store.updateRun(run.id, { currentPlanVersion: 2 });
    expect(await answer('U1')).toMatchObject({ ok: false, code: 'plan-changed' });
    await store.updateRun(run.id, { currentPlanVersion: 1 });
    expect(await answer('U1')).toMatchObject({ ok: true, value: { stepId: 's1', answer: 'staging', answeredBy: 'U1' } });
    expect(await answer('U2')).toMatchObject({ ok: false, code: 'nothing-to-answer' });
    expect((await store.listSteps(run.id, 1)).find((s) => s.stepId === 's1')).toMatchObject({
      status: 'succeeded',
      output: { answer: 'staging', answeredBy: 'U1' },
    });
  });

  it('answers the question it names, not the oldest open one, and a named question answered already is nothing to answer', async () => {
    const { run } = await withPlannedSteps();
    await store.updateRun(run.id, { status: 'executing' });
    for (const stepId of ['s1', 's2']) await store.setStepStatus({ runId: run.id, planVersion: 1, stepId, from: ['pending'], to: 'waiting' });
    const older = await store.openQuestion({ runId: run.id, stepId: 's1', planVersion: 1, question: 'Which repository?' });
    const newer = await store.openQuestion({ runId: run.id, stepId: 's2', planVersion: 1, question: 'Which tag?' });
    const answer = (questionId: string, text: string) =>
      store.answer({
        runId: run.id,
        questionId,
        answer: text,
        userId: 'U1',
        stepFrom: ['executing', 'paused'],
        planFrom: ['awaiting-answer'],
        planTo: 'planning',
      });
    expect(await answer(newer.id, 'v1.2')).toMatchObject({ ok: true, value: { id: newer.id, stepId: 's2', answer: 'v1.2' } });
    expect(await answer(newer.id, 'v9')).toMatchObject({ ok: false, code: 'nothing-to-answer' });
    expect((await store.listQuestions(run.id)).map((q) => [q.id, q.answer])).toEqual([
      [older.id, null],
      [newer.id, 'v1.2'],
    ]);
    const steps = await store.listSteps(run.id, 1);
    expect(steps.map((s) => [s.stepId, s.status])).toEqual([
      ['s1', 'waiting'],
      ['s2', 'succeeded'],
    ]);
  });

  it('moves an answered step with its answer, only from where it was, and an Abort closes every other open escalation; a refused answer moves nothing', async () => {
    const { run } = await withPlannedSteps();
    await store.setStepStatus({ runId: run.id, planVersion: 1, stepId: 's1', from: ['pending'], to: 'failed', error: { message: 'boom' } });
    await store.setStepStatus({ runId: run.id, planVersion: 1, stepId: 's2', from: ['pending'], to: 'skipped', error: { message: 'skipped: s1 failed' } });
    const first = await store.openEscalation({ runId: run.id, planVersion: 1, stepId: 's1', kind: 'step-failed', message: 'boom' });
    const other = await store.openEscalation({ runId: run.id, planVersion: 1, stepId: null, kind: 'budget', message: 'spent' });
    const retry = (from: readonly ('executing' | 'paused')[]) =>
      store.decide({
        runId: run.id,
        planVersion: 1,
        from,
        escalation: { id: first.id, action: 'retry', userId: 'U2' },
        steps: [
          { planVersion: 1, stepId: 's1', from: ['failed', 'uncertain'], to: 'pending' },
          // Not where the answer thought it was: left as it is.
          { planVersion: 1, stepId: 's2', from: ['failed'], to: 'pending', error: null },
        ],
        event: { type: 'escalation-resolved', data: { escalationId: first.id, action: 'retry', by: 'U2' } },
      });
    expect(await retry(['paused'])).toMatchObject({ ok: false, code: 'not-waiting' });
    expect((await store.listSteps(run.id, 1)).map((s) => s.status)).toEqual(['failed', 'skipped']);
    expect(await retry(['executing'])).toMatchObject({ ok: true, run: { status: 'executing' } });
    expect((await store.listSteps(run.id, 1)).map((s) => s.status)).toEqual(['pending', 'skipped']);
    expect((await store.listEscalations(run.id)).map((e) => e.status)).toEqual(['resolved', 'open']);

    const third = await store.openEscalation({ runId: run.id, planVersion: 1, stepId: 's1', kind: 'step-failed', message: 'boom again' });
    const aborted = await store.decide({
      runId: run.id,
      planVersion: 1,
      from: ['executing'],
      escalation: { id: third.id, action: 'abort', userId: 'U2' },
      alsoResolve: { action: 'abort', userId: 'U2' },
      event: { type: 'escalation-resolved', data: { escalationId: third.id, action: 'abort', by: 'U2' } },
    });
    expect(aborted.ok).toBe(true);
    const closed = (await store.listEscalations(run.id)).find((e) => e.id === other.id);
    expect(closed).toMatchObject({ status: 'resolved', resolution: 'abort', resolvedBy: 'U2' });
  });

  it.skipIf(engine === 'memory')('sees a Slack event id only once', async () => {
    expect(await markSlackEventSeen(opened.database!.db, 'Ev123')).toBe(true);
    expect(await markSlackEventSeen(opened.database!.db, 'Ev123')).toBe(false);
  });
});
