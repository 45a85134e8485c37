import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/agent/ports/tool.ts';
import { useTestStore } from '../helpers/store.ts';
import { fakeTool } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

// The real engine, not the in-memory store: a run must finish from what the database committed before the crash.
const db = useTestStore();
const harnesses: Harness[] = [];
afterEach(() => {
  for (const h of harnesses.splice(0)) h.llm.assertDone();
});

/** What the outside world holds: things a write tool made, found again by the marker written into them. */
function world() {
  const made: { marker: string; number: number }[] = [];
  const make = (ctx: ToolContext) => {
    const thing = { marker: ctx.marker, number: made.length + 1 };
    made.push(thing);
    return thing;
  };
  return { made, make };
}

const never = () => new Promise<never>(() => undefined);
const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

const writeInput = z.object({ title: z.string() });

describe('durability', () => {
  it('an executor dropped mid-run and rebuilt on the same store finishes the run without repeating a write', async () => {
    const outside = world();
    const plan = plannerAnswer({
      steps: [
        { id: 's0', tool: 'read_thing', args: { key: 'a' } },
        { id: 's1', tool: 'create_thing', args: { title: 'x' }, dependsOn: ['s0'] },
        { id: 's2', tool: 'read_thing', args: { key: 'made #{{steps.s1.output.number}}' }, dependsOn: ['s1'] },
      ],
    });
    // Process A makes the thing, then dies before it can record the result.
    const writeA = fakeTool({ name: 'create_thing', risk: 'write', input: writeInput, run: async (_args, ctx) => (outside.make(ctx), never()) });
    const a = makeHarness({ store: db.store, tools: [fakeTool({ name: 'read_thing', risk: 'read' }), writeA], llm: new ScriptedLlm().on('planner', plan) });
    harnesses.push(a);
    const run = await a.start();
    await a.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await until(() => outside.made.length === 1);
    expect((await db.store.listSteps(run.id)).find((s) => s.stepId === 's1')?.status).toBe('running');

    // Process B starts on the same store (a new replica id; the embedded store allows one process) with tools that can reconcile.
    const writeB = fakeTool({
      name: 'create_thing',
      risk: 'write',
      input: writeInput,
      run: async (_args, ctx) => ({ status: 'ok', output: { number: outside.make(ctx).number } }),
      reconcile: async (_args, ctx) => {
        const found = outside.made.find((thing) => thing.marker === ctx.marker);
        return found ? { status: 'done', output: { number: found.number, url: `https://example.test/things/${found.number}` } } : { status: 'not-done' };
      },
    });
    const readB = fakeTool({ name: 'read_thing', risk: 'read' });
    const b = makeHarness({ store: db.store, tools: [readB, writeB], llm: new ScriptedLlm(), owner: 'replica-b', soleOwner: true });
    harnesses.push(b);
    await b.agent.resume();
    await b.agent.idle();

    expect(outside.made).toHaveLength(1);
    expect(writeB.calls).toHaveLength(0);
    expect(readB.calls.map((c) => [c.stepId, c.args])).toEqual([['s2', { key: 'made #1' }]]);
    expect((await db.store.getRun(run.id))?.status).toBe('succeeded');
    const s1 = (await db.store.listSteps(run.id)).find((s) => s.stepId === 's1')!;
    expect(s1).toMatchObject({ status: 'succeeded', attempt: 1, output: { number: 1, url: 'https://example.test/things/1' } });
    expect((await db.store.listEvents(run.id)).map((e) => e.type)).toContain('step-reconciled');
    expect(b.errors).toEqual([]);
  });

  it('after a crash a read step runs again, and a write that cannot be reconciled goes to a person', async () => {
    const outside = world();
    const plan = plannerAnswer({
      steps: [
        { id: 's1', tool: 'read_thing', args: { key: 'a' } },
        { id: 's2', tool: 'create_thing', args: { title: 'x' } },
      ],
    });
    const readA = fakeTool({ name: 'read_thing', risk: 'read', run: never });
    const writeA = fakeTool({ name: 'create_thing', risk: 'write', input: writeInput, run: async (_args, ctx) => (outside.make(ctx), never()) });
    const a = makeHarness({ store: db.store, tools: [readA, writeA], llm: new ScriptedLlm().on('planner', plan) });
    harnesses.push(a);
    const run = await a.start();
    await a.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await until(() => readA.calls.length === 1 && writeA.calls.length === 1);

    const readB = fakeTool({ name: 'read_thing', risk: 'read' });
    const writeB = fakeTool({ name: 'create_thing', risk: 'write', input: writeInput }); // no reconcile()
    const b = makeHarness({ store: db.store, tools: [readB, writeB], llm: new ScriptedLlm() });
    harnesses.push(b);
    await b.agent.resume();
    await b.agent.idle();

    // The read ran again at once; the write waits for a person, and once nothing else can go on, so does the run.
    expect(writeB.calls).toHaveLength(0);
    expect(readB.calls).toHaveLength(1);
    const steps = new Map((await db.store.listSteps(run.id)).map((s) => [s.stepId, s]));
    expect(steps.get('s1')).toMatchObject({ status: 'succeeded', attempt: 2 });
    expect(steps.get('s2')?.status).toBe('uncertain');
    const [escalation] = b.surface.of(run.id, 'escalation');
    expect(escalation?.escalation).toMatchObject({ kind: 'uncertain-side-effect', stepId: 's2' });
    expect(escalation?.escalation.message).toMatch(/cannot tell whether it took effect: create_thing cannot check whether it already ran/);
    expect((await db.store.getRun(run.id))?.status).toBe('paused');

    // A person checked by hand: Skip goes on without it.
    await b.agent.resolveEscalation({ escalationId: escalation!.escalation.id, userId: 'UAPP', action: 'skip' });
    await b.agent.idle();
    expect(writeB.calls).toHaveLength(0);
    expect(readB.calls).toHaveLength(1);
    expect((await db.store.listSteps(run.id)).find((s) => s.stepId === 's1')).toMatchObject({ status: 'succeeded', attempt: 2 });
    expect((await db.store.listAttempts(run.id)).filter((x) => x.stepId === 's1').map((x) => x.status)).toEqual(['cancelled', 'succeeded']);
    expect((await db.store.getRun(run.id))?.status).toBe('succeeded');
    expect(outside.made).toHaveLength(1);
  });

  it('a step cancelled by a shutdown that ran out of time runs again after the restart, and the run finishes', async () => {
    const plan = plannerAnswer({
      steps: [
        { id: 's1', tool: 'read_thing', args: { key: 'a' } },
        { id: 's2', tool: 'read_thing', args: { key: 'b' }, dependsOn: ['s1'] },
      ],
    });
    // A read that only ends when it is cancelled: the shutdown's deadline passes while it runs.
    const readA = fakeTool({
      name: 'read_thing',
      risk: 'read',
      run: (_args, ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))),
    });
    const a = makeHarness({ store: db.store, tools: [readA], llm: new ScriptedLlm().on('planner', plan) });
    harnesses.push(a);
    const run = await a.start();
    await a.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await until(() => readA.calls.length === 1);
    await a.agent.shutdown(20);
    expect((await db.store.getRun(run.id))?.status).toBe('executing');

    const readB = fakeTool({ name: 'read_thing', risk: 'read' });
    const b = makeHarness({ store: db.store, tools: [readB], llm: new ScriptedLlm() });
    harnesses.push(b);
    await b.agent.resume();
    await b.agent.idle();
    expect(readB.calls.map((c) => c.stepId)).toEqual(['s1', 's2']);
    expect((await db.store.getRun(run.id))?.status).toBe('succeeded');
    expect((await db.store.listAttempts(run.id)).filter((x) => x.stepId === 's1').map((x) => x.status)).toEqual(['cancelled', 'succeeded']);
    expect((await db.store.listEvents(run.id)).map((e) => e.type)).toContain('step-requeued');
    expect(b.errors).toEqual([]);
  });

  it('leaves a step alone while another live replica holds its lease', async () => {
    const plan = plannerAnswer({ steps: [{ id: 's1', tool: 'create_thing', args: { title: 'x' } }] });
    const writeA = fakeTool({ name: 'create_thing', risk: 'write', input: writeInput, run: never });
    const a = makeHarness({ store: db.store, tools: [writeA], llm: new ScriptedLlm().on('planner', plan), owner: 'replica-a' });
    harnesses.push(a);
    const run = await a.start();
    await a.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await until(() => writeA.calls.length === 1);

    const writeB = fakeTool({ name: 'create_thing', risk: 'write', input: writeInput, reconcile: async () => ({ status: 'not-done' }) });
    const b = makeHarness({ store: db.store, tools: [writeB], llm: new ScriptedLlm(), owner: 'replica-b' });
    harnesses.push(b);
    await b.agent.resume();
    await b.agent.shutdown(5_000);
    expect(writeB.calls).toHaveLength(0);
    expect((await db.store.listSteps(run.id))[0]).toMatchObject({ status: 'running', leaseOwner: 'replica-a', attempt: 1 });
    expect(await db.store.listEscalations(run.id)).toEqual([]);
  });
});
