import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { useMemoryStore } from '../helpers/store.ts';
import { fakeTool, standardTools } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';
import { said, saying } from '../helpers/words.ts';

const db = useMemoryStore();
let h: Harness;
afterEach(() => {
  h.llm.assertDone();
  expect(h.errors).toEqual([]);
});

const autoRun = { autoRunReadOnly: true };

describe('executor', () => {
  it('runs a diamond DAG with its two middle steps at the same time, then the join', async () => {
    const read = fakeTool({ name: 'read_thing', risk: 'read', latencyMs: 60 });
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({
        steps: [
          { id: 'a', tool: 'read_thing', args: { key: 'a' } },
          { id: 'b', tool: 'read_thing', args: { key: 'b' }, dependsOn: ['a'] },
          { id: 'c', tool: 'read_thing', args: { key: 'c' }, dependsOn: ['a'] },
          { id: 'd', tool: 'read_thing', args: { key: 'd' }, dependsOn: ['b', 'c'] },
        ],
      }),
    );
    h = makeHarness({ store: db.store, tools: [read], llm, settings: autoRun });
    const run = await h.start();
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
    const steps = new Map((await h.store.listSteps(run.id)).map((s) => [s.stepId, s]));
    const [a, b, c, d] = [steps.get('a')!, steps.get('b')!, steps.get('c')!, steps.get('d')!];
    // Recorded times: each middle step started before the other finished.
    expect(b.startedAt!.getTime()).toBeLessThan(c.finishedAt!.getTime());
    expect(c.startedAt!.getTime()).toBeLessThan(b.finishedAt!.getTime());
    const calls = new Map(read.calls.map((call) => [call.stepId, call]));
    expect(calls.get('b')!.startedAt).toBeLessThan(calls.get('c')!.finishedAt!);
    expect(calls.get('c')!.startedAt).toBeLessThan(calls.get('b')!.finishedAt!);
    // Dependencies hold: a before both, d after both.
    expect(calls.get('a')!.finishedAt!).toBeLessThanOrEqual(Math.min(calls.get('b')!.startedAt, calls.get('c')!.startedAt));
    expect(calls.get('d')!.startedAt).toBeGreaterThanOrEqual(Math.max(calls.get('b')!.finishedAt!, calls.get('c')!.finishedAt!));
    expect(a.status).toBe('succeeded');
    expect(d.status).toBe('succeeded');
    const board = h.surface.boards.get(run.id)!;
    expect(board.runStatus).toBe('succeeded');
    expect(board.steps.map((s) => `${s.stepId}:${s.status}`)).toEqual(['a:succeeded', 'b:succeeded', 'c:succeeded', 'd:succeeded']);
    expect(h.surface.of(run.id, 'summary')[0]?.summary.outcome).toBe('succeeded');
    const events = (await h.store.listEvents(run.id)).map((e) => e.type);
    expect(events.slice(0, 3)).toEqual(['run-created', 'plan-proposed', 'plan-approved']);
    expect(events.filter((t) => t === 'step-started')).toHaveLength(4);
    expect(events.at(-1)).toBe('run-finished');
  });

  it('never runs a plan with a cycle or an unknown tool', async () => {
    const tools = standardTools();
    const cyclic = plannerAnswer({
      steps: [
        { id: 's1', tool: 'read_thing', args: { key: 'x' }, dependsOn: ['s2'] },
        { id: 's2', tool: 'read_thing', args: { key: 'y' }, dependsOn: ['s1'] },
      ],
    });
    const unknown = plannerAnswer({ steps: [{ id: 's1', tool: 'drop_database', args: {} }] });
    const llm = new ScriptedLlm().on('planner', cyclic).on('planner', unknown).on('planner', cyclic);
    h = makeHarness({ store: db.store, tools: tools.all, llm, settings: autoRun });
    const run = await h.start();
    expect((await h.store.getRun(run.id))?.status).toBe('failed');
    expect(tools.all.every((tool) => tool.calls.length === 0)).toBe(true);
    expect(await h.store.listSteps(run.id)).toEqual([]);
    expect(said(h.surface.of(run.id, 'notice')[0]?.text)).toMatch(/could not produce a valid plan.*cycle/);
  });

  it('fills references from recorded outputs, keeping types', async () => {
    const tools = standardTools();
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({
        steps: [
          { id: 's1', tool: 'create_thing', args: { title: 'first' } },
          {
            id: 's2',
            tool: 'create_thing',
            args: { title: 'after {{steps.s1.output.title}} #{{steps.s1.output.number}}', count: '{{steps.s1.output.number}}' },
            dependsOn: ['s1'],
          },
        ],
      }),
    );
    h = makeHarness({ store: db.store, tools: tools.all, llm });
    const run = await h.start();
    expect((await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).ok).toBe(true);
    await h.agent.idle();
    expect(tools.write.calls[1]?.args).toEqual({ title: 'after first #1', count: 1 });
    const attempts = await h.store.listAttempts(run.id);
    expect(attempts.find((a) => a.stepId === 's2')?.executedArgs).toEqual({ title: 'after first #1', count: 1 });
    expect((await h.store.listSteps(run.id)).find((s) => s.stepId === 's2')?.plannedArgs).toEqual({
      title: 'after {{steps.s1.output.title}} #{{steps.s1.output.number}}',
      count: '{{steps.s1.output.number}}',
    });
    expect(h.surface.of(run.id, 'summary')[0]?.summary.changes.map((c) => c.url)).toEqual(['https://example.test/things/1', 'https://example.test/things/2']);
  });

  it('retries only errors the tool marks transient', async () => {
    const flaky = fakeTool({
      name: 'read_thing',
      risk: 'read',
      run: (_args, _ctx, call) =>
        call < 3 ? { status: 'error', error: { message: 'rate limited', transient: true } } : { status: 'ok', output: { fine: true } },
    });
    const broken = fakeTool({ name: 'broken', risk: 'read', run: () => ({ status: 'error', error: { message: '404 Not Found' } }) });
    const llm = new ScriptedLlm(['planner'])
      .on(
        'planner',
        plannerAnswer({
          steps: [
            { id: 's1', tool: 'read_thing', args: { key: 'a' } },
            { id: 's2', tool: 'broken', args: { key: 'b' } },
          ],
        }),
      )
      .on('planner', plannerAnswer({ steps: [{ id: 's3', tool: 'read_thing', args: { key: 'again' } }] }));
    h = makeHarness({ store: db.store, tools: [flaky, broken], llm, settings: autoRun });
    const run = await h.start();
    expect(flaky.calls.filter((c) => c.stepId === 's1')).toHaveLength(3);
    expect(broken.calls).toHaveLength(1);
    const events = await h.store.listEvents(run.id);
    expect(events.filter((e) => e.type === 'step-retried')).toHaveLength(2);
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
  });

  it('times a step out through its AbortSignal; a write that timed out goes to a person, not a retry', async () => {
    const hanging = fakeTool({ name: 'create_thing', risk: 'write', input: z.object({ title: z.string() }), latencyMs: 60_000 });
    const llm = new ScriptedLlm().on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'create_thing', args: { title: 'x' } }] }));
    h = makeHarness({ store: db.store, tools: [hanging], llm, budgets: { stepTimeoutS: 0.05 } });
    const run = await h.start();
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    expect(hanging.calls).toHaveLength(1);
    const step = (await h.store.listSteps(run.id))[0]!;
    expect(step.status).toBe('uncertain');
    expect(step.error?.message).toMatch(/timed out/);
    const [escalation] = h.surface.of(run.id, 'escalation');
    expect(escalation?.escalation.kind).toBe('uncertain-side-effect');
    expect((await h.store.getRun(run.id))?.status).toBe('paused');
  });

  it('stops with a reason when the budget is spent', async () => {
    const tools = standardTools();
    const llm = new ScriptedLlm().on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'read_thing', args: { key: 'a' } }] }));
    // The planner's answer alone costs 120 tokens.
    h = makeHarness({ store: db.store, tools: tools.all, llm, settings: autoRun, budgets: { maxTokens: 100 } });
    const run = await h.start();
    const stored = await h.store.getRun(run.id);
    expect(stored?.status).toBe('failed');
    expect(tools.read.calls).toHaveLength(0);
    const summary = h.surface.of(run.id, 'summary')[0]?.summary;
    expect(said(summary?.reason)).toMatch(/token budget is spent \(TANDEM_MAX_TOKENS\)/);
    expect(summary?.tokens).toEqual({ input: 100, output: 20 });
    expect((await h.store.listSteps(run.id))[0]?.status).toBe('cancelled');
  });

  it('pauses on ask_human and continues with the answer as the step output', async () => {
    const tools = standardTools();
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({
        steps: [
          { id: 's1', tool: 'ask_human', args: { question: 'Which tag?' } },
          { id: 's2', tool: 'read_thing', args: { key: '{{steps.s1.output.answer}}' }, dependsOn: ['s1'] },
        ],
      }),
    );
    h = makeHarness({ store: db.store, tools: tools.all, llm, settings: autoRun });
    const run = await h.start();
    expect((await h.store.getRun(run.id))?.status).toBe('paused');
    expect(h.surface.of(run.id, 'ask')[0]).toMatchObject({ stepId: 's1', question: 'Which tag?' });
    expect((await h.store.listQuestions(run.id))[0]).toMatchObject({ stepId: 's1', answer: null });
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UANS', text: 'v1.4.0' })).toBe('answered');
    await h.agent.idle();
    expect((await h.store.listSteps(run.id)).find((s) => s.stepId === 's1')?.output).toEqual({ answer: 'v1.4.0', answeredBy: 'UANS' });
    expect(tools.read.calls[0]?.args).toEqual({ key: 'v1.4.0' });
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
  });

  it('an answer replayed after a crash (the same request again) does not also answer the next question', async () => {
    const tools = standardTools();
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({
        steps: [
          { id: 's1', tool: 'ask_human', args: { question: 'First?' } },
          { id: 's2', tool: 'ask_human', args: { question: 'Second?' }, dependsOn: ['s1'] },
        ],
      }),
    );
    h = makeHarness({ store: db.store, tools: tools.all, llm, settings: autoRun });
    const run = await h.start();
    const reply = (requestId: string, text: string) => h.agent.followUp({ conversation: run.conversation, userId: 'UANS', text, requestId });
    expect(await reply('event:Ev1', 'one')).toBe('answered');
    await h.agent.idle();
    expect(h.surface.of(run.id, 'ask').map((a) => a.question)).toEqual(['First?', 'Second?']);
    expect(await reply('event:Ev1', 'one')).toBe('already-answered');
    await h.agent.idle();
    expect((await h.store.listQuestions(run.id)).map((q) => [q.stepId, q.answer])).toEqual([
      ['s1', 'one'],
      ['s2', null],
    ]);
    expect(await reply('event:Ev2', 'two')).toBe('answered');
    await h.agent.idle();
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
  });

  it('"cancel" in the thread stops the run: running steps are cancelled and nothing else starts', async () => {
    const slow = fakeTool({ name: 'read_thing', risk: 'read', latencyMs: 10_000 });
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({
        steps: [
          { id: 's1', tool: 'read_thing', args: { key: 'a' } },
          { id: 's2', tool: 'read_thing', args: { key: 'b' }, dependsOn: ['s1'] },
        ],
      }),
    );
    h = makeHarness({ store: db.store, tools: [slow], llm, settings: autoRun });
    const run = await h.agent.startRun({ task: 't', requester: 'UREQ', conversation: { channel: 'C1', threadTs: 'cancel-me' }, origin: 'mention' });
    while (slow.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await h.agent.followUp({ conversation: { channel: 'C1', threadTs: 'cancel-me' }, userId: 'UREQ', text: 'cancel' })).toBe('cancelled');
    await h.agent.idle();
    expect(slow.calls).toHaveLength(1);
    expect((await h.store.listSteps(run.id)).map((s) => `${s.stepId}:${s.status}`)).toEqual(['s1:cancelled', 's2:cancelled']);
    expect(h.surface.boards.get(run.id)?.runStatus).toBe('cancelled');
    expect(h.surface.of(run.id, 'summary')[0]?.summary.outcome).toBe('cancelled');
  });

  it('keeps at most `concurrency` steps running at once', async () => {
    let running = 0;
    let most = 0;
    const read = fakeTool({
      name: 'read_thing',
      risk: 'read',
      run: async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running--;
        return { status: 'ok', output: {} };
      },
    });
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({ steps: ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, tool: 'read_thing', args: { key: id } })) }),
    );
    h = makeHarness({ store: db.store, tools: [read], llm, settings: { ...autoRun, concurrency: 2 } });
    const run = await h.start();
    expect(read.calls).toHaveLength(5);
    expect(most).toBe(2);
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
  });

  it("stores tool output redacted and cut to size; output that breaks the tool's schema fails its check", async () => {
    const leaky = fakeTool({
      name: 'read_thing',
      risk: 'read',
      output: z.object({ url: z.string() }).passthrough(),
      run: () => ({
        status: 'ok',
        output: { url: 'https://x.test', token: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', note: 'uses s3cret-value', big: 'x'.repeat(10_000) },
      }),
    });
    const bad = fakeTool({ name: 'bad_output', risk: 'read', output: z.object({ url: z.string() }), run: () => ({ status: 'ok', output: { nope: 1 } }) });
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({
        steps: [
          { id: 's1', tool: 'read_thing', args: { key: 'a' } },
          { id: 's2', tool: 'bad_output', args: { key: 'b' }, dependsOn: ['s1'] },
        ],
      }),
    );
    h = makeHarness({ store: db.store, tools: [leaky, bad], llm, settings: autoRun });
    const run = await h.start();
    const s1 = (await h.store.listSteps(run.id)).find((s) => s.stepId === 's1')!;
    expect(s1.output?.token).toBe('[redacted]');
    expect(s1.output?.note).toBe('uses [redacted]');
    expect(String(s1.output?.big).length).toBeLessThan(4100);
    expect(JSON.stringify(await h.store.listEvents(run.id))).not.toMatch(/ghp_abc|s3cret-value/);
    const escalation = (await h.store.listEscalations(run.id))[0];
    expect(escalation).toMatchObject({ kind: 'evaluation-failed', stepId: 's2' });
    expect(escalation?.message).toMatch(/bad_output returned output that does not match its schema \(url: /);
  });

  it('stops a run that outlives TANDEM_RUN_TIMEOUT_S, cancelling its running step', async () => {
    const slow = fakeTool({ name: 'read_thing', risk: 'read', latencyMs: 30_000 });
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({
        steps: [
          { id: 's1', tool: 'read_thing', args: { key: 'a' } },
          { id: 's2', tool: 'read_thing', args: { key: 'b' }, dependsOn: ['s1'] },
        ],
      }),
    );
    h = makeHarness({ store: db.store, tools: [slow], llm, settings: autoRun, budgets: { runTimeoutS: 0.5 } });
    const run = await h.start();
    expect(slow.calls).toHaveLength(1);
    expect((await h.store.listSteps(run.id)).map((s) => `${s.stepId}:${s.status}`)).toEqual(['s1:cancelled', 's2:cancelled']);
    expect(h.surface.of(run.id, 'summary')[0]?.summary).toMatchObject({
      outcome: 'failed',
      reason: saying(/took longer than 0\.5s \(TANDEM_RUN_TIMEOUT_S\)/),
    });
  });
});
