import { z } from 'zod';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import type { ToolContext } from '../../src/agent/ports/tool.ts';
import { sleep } from '../../src/agent/sleep.ts';
import { createRunStore } from '../../src/store/index.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { fakeTool } from '../agent/support/fake-tools.ts';
import { ScriptedLlm, plannerAnswer } from '../agent/support/scripted-llm.ts';
import { startReplica, until, type Replica } from './support/replica.ts';
import { auditViolations } from '../audit/support.ts';

const plan: Plan = {
  schemaVersion: 1,
  goal: 'Look, make, look again',
  confidence: 0.9,
  steps: [
    { id: 's1', title: 'Look', tool: 'read_thing', args: { key: 'before' }, dependsOn: [] },
    { id: 's2', title: 'Make', tool: 'create_thing', args: { title: 'x' }, dependsOn: ['s1'] },
    { id: 's3', title: 'Look again', tool: 'read_thing', args: { key: 'after #{{steps.s2.output.number}}' }, dependsOn: ['s2'] },
  ],
  rollback: [],
};

/** The world outside, shared by every replica: what was made (found again by marker) and every call per run and step. */
function world() {
  const made: { marker: string; number: number }[] = [];
  const calls = new Map<string, string[]>();
  const count = (ctx: ToolContext, owner: string) => {
    const key = `${ctx.runId}/${ctx.stepId}`;
    calls.set(key, [...(calls.get(key) ?? []), owner]);
  };
  const make = (ctx: ToolContext) => {
    const thing = { marker: ctx.marker, number: made.length + 1 };
    made.push(thing);
    return thing;
  };
  return { made, calls, count, make };
}
type World = ReturnType<typeof world>;

/** read_thing and create_thing as one replica holds them; `hang` makes a call never return (the replica is about to die). */
function toolsFor(outside: World, owner: string, hang: { read?: () => boolean; write?: boolean } = {}) {
  const read = fakeTool({
    name: 'read_thing',
    risk: 'read',
    run: async (args, ctx) => {
      outside.count(ctx, owner);
      if (hang.read?.()) await sleep(3_600_000, ctx.signal);
      return { status: 'ok', output: { key: args.key } };
    },
  });
  const write = fakeTool({
    name: 'create_thing',
    risk: 'write',
    input: z.object({ title: z.string() }),
    run: async (_args, ctx) => {
      outside.count(ctx, owner);
      const thing = outside.make(ctx);
      if (hang.write) await new Promise(() => undefined); // made, but the result is never recorded
      return { status: 'ok', output: { number: thing.number, url: `https://example.test/things/${thing.number}` } };
    },
    reconcile: async (_args, ctx) => {
      const found = outside.made.find((thing) => thing.marker === ctx.marker);
      return found ? { status: 'done', output: { number: found.number, url: `https://example.test/things/${found.number}` } } : { status: 'not-done' };
    },
  });
  return [read, write];
}

/** Short enough for a test, long enough that a replica starved of CPU by a busy test run does not look dead. */
const FAST = { leaseMs: 2_000, heartbeatMs: 200, adoptEveryMs: 100, refreshMs: 100 };

if (!process.env.TEST_DATABASE_URL) console.log('test/replicas/replicas.test.ts skipped: set TEST_DATABASE_URL to a PostgreSQL server to run it');

describe.runIf(process.env.TEST_DATABASE_URL)('replicas on one PostgreSQL database', () => {
  let database: TestDatabase;
  let store: RunStore;
  const replicas: Replica[] = [];
  const replica = async (owner: string, outside: World, options: { hang?: Parameters<typeof toolsFor>[2]; settings?: Partial<typeof FAST> } = {}) => {
    const started = await startReplica({
      url: database.url!,
      owner,
      tools: toolsFor(outside, owner, options.hang),
      plan,
      replicas: { ...FAST, ...options.settings },
    });
    replicas.push(started);
    await started.agent.resume();
    return started;
  };
  const statusOf = async (runId: string) => (await store.getRun(runId))?.status;

  beforeAll(async () => {
    database = await openTestDatabase('postgres');
    store = createRunStore(database.db);
  });
  afterEach(async () => {
    await Promise.all(replicas.splice(0).map((r) => r.close()));
  });
  afterAll(() => database.destroy());

  it('50 runs started and approved across two replicas: every step runs exactly once and every run succeeds', async () => {
    const outside = world();
    // Nobody dies here: long leases, so a slow machine does not hand runs over mid-step.
    const a = await replica('replica-a', outside, { settings: { leaseMs: 30_000 } });
    const b = await replica('replica-b', outside, { settings: { leaseMs: 30_000 } });
    const runIds = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const [proposer, approver, other] = i % 3 ? [i % 2 ? b : a, a, b] : [i % 2 ? b : a, b, a];
        const run = await proposer.propose(`task ${i}`);
        expect(await statusOf(run.id)).toBe('awaiting-approval');
        if (i % 5) {
          await approver.approve(run.id);
        } else {
          // The same click reaches both replicas (a Slack retry on another instance): one decision counts.
          const decisions = await Promise.all(
            [approver, other].map((r) => r.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })),
          );
          expect(
            decisions.filter((d) => d.ok),
            JSON.stringify(decisions),
          ).toHaveLength(1);
        }
        return run.id;
      }),
    );
    await until(async () => (await Promise.all(runIds.map(statusOf))).every((status) => status === 'succeeded'), 'every run to succeed').catch(
      async (error: Error) => {
        const stuck = await Promise.all(
          runIds.map(async (runId) => ({
            runId,
            status: await statusOf(runId),
            events: (await store.listEvents(runId)).map((e) => `${e.type} ${JSON.stringify(e.data)}`),
            steps: (await store.listSteps(runId)).map((s) => [s.stepId, s.status, s.attempt, s.leaseOwner, s.error?.message]),
          })),
        );
        throw new Error(`${error.message}: ${JSON.stringify(stuck.filter((run) => run.status !== 'succeeded'))}`);
      },
    );
    await Promise.all([a.agent.idle(), b.agent.idle()]);

    for (const runId of runIds) {
      for (const stepId of ['s1', 's2', 's3']) expect(outside.calls.get(`${runId}/${stepId}`), `${runId}/${stepId}`).toHaveLength(1);
    }
    expect(outside.made).toHaveLength(50);
    // Both replicas did work, and each run's summary was posted once, by one replica.
    const owners = new Set([...outside.calls.values()].flat());
    expect(owners).toEqual(new Set(['replica-a', 'replica-b']));
    for (const runId of runIds) expect([...a.surface.of(runId, 'summary'), ...b.surface.of(runId, 'summary')]).toHaveLength(1);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('a run is leased to its creator from its first write: with lease claims slow, no peer adopts it, it is planned once, and a double click on it counts once', async () => {
    // Once the cause of a flake under full-suite load: the creator's claim, a write after the insert, waited
    // behind its busy connection pool past the adoption grace; a peer adopted and planned the run, the creator
    // planned it too, and v2 replaced v1 under both clicks of a double click. The lease now goes in with the run.
    const outside = world();
    let claimDelayMs = FAST.leaseMs * 2;
    const a = await startReplica({
      url: database.url!,
      owner: 'replica-a',
      plan,
      tools: toolsFor(outside, 'replica-a'),
      replicas: FAST,
      slow: { claimRunLease: () => claimDelayMs },
    });
    replicas.push(a);
    const b = await replica('replica-b', outside);
    const run = await a.agent.startRun({ task: 'make it', requester: 'UREQ', conversation: { channel: 'C1', threadTs: 'late-claim' }, origin: 'mention' });
    await until(async () => (await statusOf(run.id)) === 'awaiting-approval', 'the plan');
    await sleep(FAST.leaseMs * 1.5); // past the adoption grace, with B scanning all along
    claimDelayMs = 0;
    await Promise.all([a.agent.idle(), b.agent.idle()]);
    expect(
      (await store.listPlanVersions(run.id)).map((v) => v.version),
      JSON.stringify((await store.listEvents(run.id)).map((e) => [e.type, e.data])),
    ).toEqual([1]);
    expect((await store.listEvents(run.id)).map((e) => e.type)).not.toContain('run-adopted');
    const decisions = await Promise.all([a, b].map((r) => r.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })));
    expect(
      decisions.filter((d) => d.ok),
      JSON.stringify(decisions),
    ).toHaveLength(1);
    await until(async () => (await statusOf(run.id)) === 'succeeded', 'the run to succeed');
    expect(await auditViolations(store, toolsFor(outside, 'audit'))).toEqual([]);
  });

  it('a double click decided on the replica that does not hold the lease: the replica that holds it drives the run at once, with no adoption scan to wait for', async () => {
    const outside = world();
    // No adoption scan in this test's time: only a hand-over between the two decisions can start the run.
    const settings = { ...FAST, leaseMs: 30_000, adoptEveryMs: 60_000 };
    // A takes the lease first and decides last; B decides first without the lease.
    const a = await startReplica({
      url: database.url!,
      owner: 'replica-a',
      plan,
      tools: toolsFor(outside, 'replica-a'),
      replicas: settings,
      slow: { decide: () => 300 },
    });
    replicas.push(a);
    const b = await startReplica({
      url: database.url!,
      owner: 'replica-b',
      plan,
      tools: toolsFor(outside, 'replica-b'),
      replicas: settings,
      slow: { claimRunLease: () => 100 },
    });
    replicas.push(b);
    await Promise.all([a.agent.resume(), b.agent.resume()]);
    const run = await a.propose('make it');
    await sleep(200); // the planner lets go of the lease
    const decisions = await Promise.all([a, b].map((r) => r.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })));
    expect(decisions.map((d) => d.ok)).toEqual([false, true]);
    await until(async () => (await statusOf(run.id)) === 'succeeded', 'the run to succeed', 10_000);
    expect((await store.listEvents(run.id)).map((e) => e.type)).not.toContain('run-adopted');
    expect(outside.made).toHaveLength(1);
  });

  it('a replica that dies mid-run: the other adopts its runs, reconciles the write it was making and re-runs the read', async () => {
    const outside = world();
    let hangReads = false;
    const a = await replica('replica-a', outside, { hang: { write: true, read: () => hangReads } });
    const b = await replica('replica-b', outside);
    const writing = await a.propose('make it');
    await a.approve(writing.id);
    await until(() => outside.made.length === 1, 'replica A to be mid-write');
    // A second run waits on replica A for a read that never returns.
    hangReads = true;
    const reading = await a.propose('look at it');
    await a.approve(reading.id);
    await until(() => outside.calls.has(`${reading.id}/s1`), 'replica A to be mid-read');

    // While A is alive its heartbeat keeps the long write's lease: B leaves it alone past a whole lease.
    await sleep(FAST.leaseMs * 1.5);
    expect((await store.listSteps(writing.id)).find((s) => s.stepId === 's2')).toMatchObject({ status: 'running', leaseOwner: 'replica-a' });
    expect((await store.listEvents(writing.id)).map((e) => e.type)).not.toContain('run-adopted');

    a.die();
    await until(async () => (await statusOf(writing.id)) === 'succeeded' && (await statusOf(reading.id)) === 'succeeded', 'replica B to finish both runs');

    // The write that may have happened was reconciled, not repeated; the read ran again on B.
    expect(outside.made.map((thing) => thing.marker)).toEqual([`tandem:${writing.id}/s2`, `tandem:${reading.id}/s2`]);
    expect(outside.calls.get(`${writing.id}/s2`)).toEqual(['replica-a']);
    expect(outside.calls.get(`${writing.id}/s3`)).toEqual(['replica-b']);
    expect(outside.calls.get(`${reading.id}/s1`)).toEqual(['replica-a', 'replica-b']);
    expect(outside.calls.get(`${reading.id}/s2`)).toEqual(['replica-b']);
    const s2 = (await store.listSteps(writing.id)).find((s) => s.stepId === 's2');
    expect(s2).toMatchObject({ status: 'succeeded', attempt: 1, output: { number: 1 } });
    const events = (await store.listEvents(writing.id)).map((e) => e.type);
    expect(events).toContain('run-adopted');
    expect(events).toContain('step-reconciled');
    await b.agent.idle();
    expect(b.surface.of(writing.id, 'summary')[0]?.summary.outcome).toBe('succeeded');
    expect(b.errors).toEqual([]);
  });

  it('a replica that shuts down gracefully releases its leases: a peer adopts at once, not after the lease runs out', async () => {
    const outside = world();
    const slow = { settings: { leaseMs: 120_000 } }; // only a release lets a peer in within this test's time
    let openGate = () => undefined as void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const a = await startReplica({
      url: database.url!,
      owner: 'replica-a',
      plan,
      replicas: { ...FAST, ...slow.settings },
      tools: [
        fakeTool({
          name: 'read_thing',
          risk: 'read',
          run: async (args, ctx) => (outside.count(ctx, 'replica-a'), await gate, { status: 'ok', output: { key: args.key } }),
        }),
        ...toolsFor(outside, 'replica-a').slice(1),
      ],
    });
    replicas.push(a);
    const b = await replica('replica-b', outside, slow);
    const run = await a.propose();
    await a.approve(run.id);
    await until(() => outside.calls.has(`${run.id}/s1`), 'replica A to be running s1');

    const closing = a.agent.shutdown(5_000);
    openGate(); // the running step finishes and is recorded during the drain
    await closing;
    await until(async () => (await statusOf(run.id)) === 'succeeded', 'replica B to adopt and finish the run', 10_000).catch(async (error: Error) => {
      const facts = {
        status: await statusOf(run.id),
        events: (await store.listEvents(run.id)).map((e) => e.type),
        steps: (await store.listSteps(run.id)).map((s) => `${s.stepId}:${s.status}:${s.leaseOwner}`),
        bErrors: b.errors,
        aErrors: a.errors,
      };
      throw new Error(`${error.message}: ${JSON.stringify(facts)}`);
    });
    expect(outside.calls.get(`${run.id}/s1`)).toEqual(['replica-a']);
    expect(outside.calls.get(`${run.id}/s2`)).toEqual(['replica-b']);
    expect(outside.calls.get(`${run.id}/s3`)).toEqual(['replica-b']);
    expect(b.errors).toEqual([]);
  });

  it('an answer recorded on one replica reaches the run another replica drives, which goes on with it', async () => {
    const outside = world();
    let openGate = () => undefined as void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const askPlan: Plan = {
      ...plan,
      steps: [
        { id: 'q1', title: 'Ask', tool: 'ask_human', args: { question: 'Which one?' }, dependsOn: [] },
        { id: 's1', title: 'Look for long', tool: 'read_thing', args: { key: 'slow' }, dependsOn: [] },
        { id: 's2', title: 'Look at the answer', tool: 'read_thing', args: { key: '{{steps.q1.output.answer}}' }, dependsOn: ['q1'] },
      ],
    };
    const toolsOf = (owner: string) => [
      fakeTool({
        name: 'ask_human',
        risk: 'read',
        input: z.object({ question: z.string() }),
        run: (args) => ({ status: 'pause', question: String(args.question) }),
      }),
      fakeTool({
        name: 'read_thing',
        risk: 'read',
        run: async (args, ctx) => (outside.count(ctx, owner), args.key === 'slow' && (await gate), { status: 'ok', output: { key: args.key } }),
      }),
    ];
    const [a, b] = await Promise.all(
      ['replica-a', 'replica-b'].map((owner) => startReplica({ url: database.url!, owner, plan: askPlan, tools: toolsOf(owner), replicas: FAST })),
    );
    replicas.push(a!, b!);
    await Promise.all([a!.agent.resume(), b!.agent.resume()]);
    const run = await a!.propose();
    await a!.approve(run.id);
    await until(
      async () => outside.calls.has(`${run.id}/s1`) && (await store.listSteps(run.id)).some((s) => s.stepId === 'q1' && s.status === 'waiting'),
      'q1 to wait while s1 runs',
    );

    expect(await b!.agent.followUp({ conversation: run.conversation, userId: 'UANS', text: 'the blue one' })).toBe('answered');
    // A still drives (s1 is running there) and picks the answer up from the store.
    await until(() => outside.calls.has(`${run.id}/s2`), 'the step waiting on the answer to start');
    expect(outside.calls.get(`${run.id}/s2`)).toEqual(['replica-a']);
    expect(await statusOf(run.id)).toBe('executing');
    openGate();
    await until(async () => (await statusOf(run.id)) === 'succeeded', 'the run to succeed');
    expect((await store.listSteps(run.id)).find((s) => s.stepId === 's2')?.output).toEqual({ key: 'the blue one' });
  });

  it('a replica that dies while planning: the other plans the run again and proposes it', async () => {
    const outside = world();
    let asked = 0;
    const stuckModel = { has: () => true, generate: () => (asked++, new Promise<never>(() => undefined)) };
    const a = await startReplica({
      url: database.url!,
      owner: 'replica-a',
      plan: null,
      llm: stuckModel,
      tools: toolsFor(outside, 'replica-a'),
      replicas: FAST,
    });
    const llmB = new ScriptedLlm().on('planner', plannerAnswer({ goal: 'Make it', steps: [{ id: 's1', tool: 'create_thing', args: { title: 'x' } }] }));
    const b = await startReplica({ url: database.url!, owner: 'replica-b', plan: null, llm: llmB, tools: toolsFor(outside, 'replica-b'), replicas: FAST });
    replicas.push(a, b);
    await Promise.all([a.agent.resume(), b.agent.resume()]);
    const run = await a.agent.startRun({ task: 'make it', requester: 'UREQ', conversation: { channel: 'C1', threadTs: 'planning-death' }, origin: 'mention' });
    await until(() => asked === 1, 'replica A to ask its model');

    // While A lives, its heartbeat keeps the planning lease: B leaves the run alone.
    await sleep(FAST.leaseMs * 1.5);
    expect(await statusOf(run.id)).toBe('planning');
    a.die();
    await until(async () => (await statusOf(run.id)) === 'awaiting-approval', 'replica B to plan the run again');
    await b.agent.idle(); // the plan is posted just after the status moves
    expect((await store.listPlanVersions(run.id)).map((v) => [v.version, v.authorKind, v.plan.goal])).toEqual([[1, 'planner', 'Make it']]);
    expect(b.surface.of(run.id, 'plan')).toHaveLength(1);
    expect((await store.listEvents(run.id)).map((e) => e.type)).toContain('run-adopted');
    llmB.assertDone();
  });

  it('a cancel recorded on one replica stops the run another replica drives; the board is finished by one writer', async () => {
    const outside = world();
    const a = await replica('replica-a', outside, { hang: { read: () => true } });
    const b = await replica('replica-b', outside);
    const run = await a.propose();
    await a.approve(run.id);
    await until(() => outside.calls.has(`${run.id}/s1`), 'replica A to be running s1');

    expect(await b.agent.cancel({ runId: run.id, userId: 'UREQ' })).toEqual({ ok: true, value: undefined });
    expect(await statusOf(run.id)).toBe('cancelled');
    // A saw the cancel through the store and stopped its running step before B wrote the last board.
    expect((await store.listSteps(run.id)).map((s) => `${s.stepId}:${s.status}`)).toEqual(['s1:cancelled', 's2:cancelled', 's3:cancelled']);
    expect(b.surface.boards.get(run.id)?.runStatus).toBe('cancelled');
    expect(a.surface.boards.get(run.id)?.runStatus).not.toBe('cancelled');
    expect(b.surface.of(run.id, 'summary')[0]?.summary.outcome).toBe('cancelled');
    expect(a.surface.of(run.id, 'summary')).toEqual([]);
    await a.agent.idle();
    expect(outside.calls.get(`${run.id}/s2`)).toBeUndefined();
  });
});
