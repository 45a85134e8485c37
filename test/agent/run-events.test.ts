import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RunEvent } from '../../src/agent/model/run-events.ts';
import { parseRunEvent, RUN_EVENT_TYPES, storedTypeOf } from '../../src/agent/model/run-events.ts';
import { RepoSchema, NumberArg } from '../../src/integrations/github/repo-ref.ts';
import { createAskHumanTool } from '../../src/integrations/tools/thread/ask-human.ts';
import { useTestStore } from '../helpers/store.ts';
import { fakeTool, standardTools, type FakeTool } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

// The real engine, not the in-memory store: a test stores an event row in a shape this version does not know, with SQL.
const db = useTestStore();
let h: Harness;
let used: Harness | undefined;
afterEach(() => {
  // Only tests that ran an agent have one to check.
  if (used === h) return;
  used = h;
  h.llm.assertDone();
  expect(h.errors).toEqual([]);
});

/** Every event type the runs below wrote; the last test says which were seen. */
const seen = new Set<string>();

/** The run's events as stored: each one must read as the known event it was written as. */
async function knownEvents(runId: string): Promise<RunEvent[]> {
  const events = await h.store.listEvents(runId);
  const unread = events.filter((event) => event.type === 'unknown');
  expect(unread.map((event) => ({ type: storedTypeOf(event), data: event.data }))).toEqual([]);
  for (const event of events) seen.add(event.type);
  return events;
}

const at = new Date('2026-01-01T00:00:00Z');
const row = (type: string, data: unknown) => ({ runId: 'run_1', seq: 1, type, data, at });

describe('reading stored events', () => {
  it('a known type with its payload reads as that event, typed', () => {
    const event = parseRunEvent(row('plan-rejected', { version: 2, by: 'U1' }));
    expect(event).toEqual({ runId: 'run_1', seq: 1, at, type: 'plan-rejected', data: { version: 2, by: 'U1' } });
  });

  it('a type this version does not know, or a payload that does not fit, is kept as unknown instead of failing the read', () => {
    expect(parseRunEvent(row('plan-archived', { version: 1 }))).toEqual({
      runId: 'run_1',
      seq: 1,
      at,
      type: 'unknown',
      storedType: 'plan-archived',
      data: { version: 1 },
    });
    expect(parseRunEvent(row('plan-rejected', { version: 'two', by: 'U1' }))).toMatchObject({ type: 'unknown', storedType: 'plan-rejected' });
    // A field this version does not know: nothing is dropped from what `tandem show` prints.
    expect(parseRunEvent(row('run-paused', { reason: 'x', until: 'noon' }))).toMatchObject({ type: 'unknown', data: { reason: 'x', until: 'noon' } });
    expect(parseRunEvent(row('run-paused', 'text'))).toMatchObject({ type: 'unknown', data: { value: 'text' } });
  });

  it('an old row in the database is listed with the others, not thrown', async () => {
    const llm = new ScriptedLlm().on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'read_thing', args: { key: 'a' } }] }));
    h = makeHarness({ store: db.store, tools: standardTools().all, llm, settings: { autoRunReadOnly: true } });
    const run = await h.start();
    await db.database.db.execute(sql`update events set data = '{"legacy": true}'::jsonb where run_id = ${run.id} and seq = 1`);
    const events = await h.store.listEvents(run.id);
    expect(events[0]).toMatchObject({ seq: 1, type: 'unknown', storedType: 'run-created', data: { legacy: true } });
    expect(events.slice(1).every((event) => event.type !== 'unknown')).toBe(true);
  });

  it('only known types with their payloads can be appended (checked by the compiler)', () => {
    // Never called: these lines exist for tsc, which refuses each one.
    const refusedByTheCompiler = (store: Harness['store']) => [
      // @ts-expect-error an event type nobody reads
      store.appendEvent('run_1', 'plan-archived', {}),
      // @ts-expect-error a payload that is not run-paused's
      store.appendEvent('run_1', 'run-paused', { because: 'x' }),
    ];
    expect(typeof refusedByTheCompiler).toBe('function');
  });
});

/** The real ask_human and a merge whose target can come from a person's answer (it then waits for a Confirm). */
function confirmTools() {
  const merge: FakeTool = {
    ...fakeTool({
      name: 'merge_pull',
      risk: 'destructive',
      input: z.object({ repo: RepoSchema, number: NumberArg }),
      run: (args) => ({ status: 'ok', output: { merged: true, number: args.number } }),
    }),
    targets: ['repo', 'number'],
  };
  const create: FakeTool = {
    ...fakeTool({ name: 'create_thing', risk: 'write', input: z.object({ title: z.string() }), run: () => ({ status: 'ok', output: { number: 5 } }) }),
    targets: [],
  };
  const undo: FakeTool = { ...fakeTool({ name: 'delete_thing', risk: 'write', input: z.object({ number: z.number() }) }), targets: ['number'] };
  return [createAskHumanTool(), merge, create, undo];
}

const answeredMerge = plannerAnswer({
  steps: [
    { id: 's0', tool: 'create_thing', args: { title: 'note' } },
    { id: 's1', tool: 'ask_human', args: { question: 'Which PR?' } },
    { id: 's2', tool: 'merge_pull', args: { repo: 'acme/api', number: '{{steps.s1.output.answer}}' }, dependsOn: ['s0', 's1'] },
  ],
  rollback: [{ id: 'r1', tool: 'delete_thing', args: { number: '{{steps.s0.output.number}}' }, undoes: 's0' }],
});

describe('every event a run writes reads back as a known event', () => {
  it.each(['confirm', 'abort'] as const)('approve, a question answered, a Confirm of the filled-in target (%s)', async (decision) => {
    h = makeHarness({
      store: db.store,
      tools: confirmTools(),
      llm: new ScriptedLlm().on('planner', answeredMerge),
      approvers: ['UREQ', 'UAPP'],
      soleOwner: true,
    });
    const run = await h.start('merge the PR I name', 'UREQ');
    expect((await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).ok).toBe(true);
    await h.agent.idle();
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: '66' })).toBe('answered');
    await h.agent.idle();
    expect((await h.agent.confirmTarget({ runId: run.id, planVersion: 1, stepId: 's2', userId: 'UAPP', decision })).ok).toBe(true);
    await h.agent.idle();
    const events = await knownEvents(run.id);
    expect((await h.store.getRun(run.id))?.status).toBe(decision === 'confirm' ? 'succeeded' : 'aborted');
    const confirmed = events.find((event) => event.type === 'target-confirmed' || event.type === 'target-aborted');
    expect(confirmed?.data).toEqual({
      planVersion: 1,
      stepId: 's2',
      by: 'UAPP',
      targets: { repo: 'acme/api', number: 66 },
      // A Confirm records the policy it was permitted under (decision 046); an Abort records none.
      ...(decision === 'confirm' ? { policy: { hash: expect.any(String), rules: expect.any(Array), groups: [] } } : {}),
    });
  });

  it('a transient error retried, a failed step, a replan that runs', async () => {
    const flaky = fakeTool({
      name: 'read_thing',
      risk: 'read',
      run: (_args, _ctx, call) =>
        call < 2 ? { status: 'error', error: { message: 'rate limited', transient: true } } : { status: 'ok', output: { fine: true } },
    });
    const broken = fakeTool({ name: 'broken', risk: 'read', run: () => ({ status: 'error', error: { message: '404 Not Found' } }) });
    const llm = new ScriptedLlm(['planner'])
      .on(
        'planner',
        plannerAnswer({
          steps: [
            { id: 's1', tool: 'read_thing', args: { key: 'a' } },
            { id: 's2', tool: 'broken', args: { key: 'b' } },
            { id: 's3', tool: 'read_thing', args: { key: 'c' }, dependsOn: ['s2'] },
          ],
        }),
      )
      .on('planner', plannerAnswer({ steps: [{ id: 's4', tool: 'read_thing', args: { key: 'again' } }] }));
    h = makeHarness({ store: db.store, tools: [flaky, broken], llm, settings: { autoRunReadOnly: true } });
    const run = await h.start();
    const events = await knownEvents(run.id);
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
    const failed = events.find((event) => event.type === 'step-failed');
    expect(failed?.type === 'step-failed' && failed.data.error?.message).toBe('404 Not Found');
  });

  it('a write that fails escalates; Abort resolves it and rolls back what was made', async () => {
    const tools = standardTools();
    const failing = fakeTool({
      name: 'merge_thing',
      risk: 'write',
      input: z.object({ number: z.number() }),
      run: () => ({ status: 'error', error: { message: 'conflict' } }),
    });
    const plan = plannerAnswer({
      steps: [
        { id: 's1', tool: 'create_thing', args: { title: 'first' } },
        { id: 's2', tool: 'merge_thing', args: { number: 1 }, dependsOn: ['s1'] },
      ],
      rollback: [{ id: 'r1', tool: 'delete_thing', args: { number: '{{steps.s1.output.number}}' }, undoes: 's1' }],
    });
    h = makeHarness({ store: db.store, tools: [tools.write, tools.undo, failing], llm: new ScriptedLlm().on('planner', plan) });
    const run = await h.start();
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    const [escalation] = await h.store.listEscalations(run.id);
    expect(escalation).toBeDefined();
    expect((await h.agent.resolveEscalation({ escalationId: escalation!.id, userId: 'UAPP', action: 'abort' })).ok).toBe(true);
    await h.agent.idle();
    await knownEvents(run.id);
    expect(tools.undo.calls).toHaveLength(1);
  });

  it('questions asked by the plan, an edit, a revision, a rejection and a cancel', async () => {
    const tools = standardTools();
    const readPlan = plannerAnswer({ steps: [{ id: 's1', tool: 'merge_thing', args: { number: 7 } }] });
    const llm = new ScriptedLlm()
      .on('planner', plannerAnswer({ steps: [], questions: ['Which PR?'], confidence: 0.2 }))
      .on('planner', readPlan)
      .on('planner', readPlan)
      .on('planner', readPlan);
    h = makeHarness({ store: db.store, tools: tools.all, llm });
    const run = await h.start('merge a PR', 'UREQ');
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'PR 7' })).toBe('answered');
    await h.agent.idle();
    const v2 = (await h.store.getPlanVersion(run.id, 2))!.plan;
    expect((await h.agent.editPlan({ runId: run.id, planVersion: 2, userId: 'UREQ', plan: { ...v2, goal: 'Merge PR 7' } })).ok).toBe(true);
    expect((await h.agent.revisePlan({ runId: run.id, planVersion: 3, userId: 'UREQ', instruction: 'merge it' })).ok).toBe(true);
    await h.agent.idle();
    expect((await h.agent.decide({ runId: run.id, planVersion: 4, userId: 'UREQ', decision: 'reject' })).ok).toBe(true);
    await h.agent.idle();
    await knownEvents(run.id);

    const second = await h.start('merge another PR', 'UREQ');
    expect((await h.agent.cancel({ runId: second.id, userId: 'UREQ' })).ok).toBe(true);
    await h.agent.idle();
    await knownEvents(second.id);
  });

  it('covers the event types these runs write', () => {
    const expected = [
      'run-created',
      'plan-proposed',
      'plan-approved',
      'plan-rejected',
      'plan-edit-started',
      'revision-requested',
      'questions-asked',
      'question-answered',
      'run-paused',
      'run-resumed',
      'run-cancel-requested',
      'run-finished',
      'step-started',
      'step-succeeded',
      'step-failed',
      'step-waiting',
      'step-retried',
      'step-skipped',
      'replan-started',
      'confirmation-requested',
      'target-confirmed',
      'target-aborted',
      'escalation-opened',
      'escalation-resolved',
      'rollback-started',
    ];
    expect([...seen].sort()).toEqual(expect.arrayContaining(expected));
    expect(expected.every((type) => (RUN_EVENT_TYPES as string[]).includes(type))).toBe(true);
  });
});
