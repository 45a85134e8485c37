import { afterEach, describe, expect, it } from 'vitest';
import { useMemoryStore } from '../helpers/store.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';
import { spoken } from './support/spoken.ts';
import { said } from '../helpers/words.ts';

const db = useMemoryStore();
let h: Harness;
afterEach(() => {
  h.llm.assertDone();
  expect(h.errors).toEqual([]);
});

const mergePlan = plannerAnswer({
  steps: [
    { id: 's1', tool: 'read_thing', args: { key: 'pr' } },
    { id: 's2', tool: 'merge_thing', args: { number: 7 }, dependsOn: ['s1'] },
  ],
});

describe('approvals', () => {
  it('a write plan waits for an approver; others are told why and nothing runs', async () => {
    const tools = standardTools();
    h = makeHarness({
      store: db.store,
      tools: tools.all,
      llm: new ScriptedLlm().on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'create_thing', args: { title: 't' } }] })),
      approvers: ['UAPP'],
      settings: { autoRunReadOnly: true },
    });
    const run = await h.start('make a thing', 'UREQ');
    expect((await h.store.getRun(run.id))?.status).toBe('awaiting-approval');
    const [proposal] = h.surface.of(run.id, 'plan');
    expect(proposal?.proposal).toMatchObject({ version: 1, autoApproved: false, risks: { s1: 'write' }, authorKind: 'planner', authorId: 'fake:scripted' });
    expect(spoken(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UREQ', decision: 'approve' }))).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'not-approver' }),
    });
    await h.agent.idle();
    expect(tools.write.calls).toHaveLength(0);
    expect(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(tools.write.calls).toHaveLength(1);
    expect(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'not-waiting' }),
    });
    expect((await h.store.listApprovals(run.id)).map((a) => `${a.userId}:${a.decision}`)).toEqual(['UAPP:approved']);
  });

  it('a destructive plan needs an approver other than the requester', async () => {
    const tools = standardTools();
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', mergePlan), approvers: ['UREQ', 'UAPP'] });
    const run = await h.start('merge PR 7', 'UREQ');
    expect(spoken(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UREQ', decision: 'approve' }))).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'requester-may-not-approve-destructive' }),
    });
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    expect(tools.merge.calls).toHaveLength(1);
  });

  it('an edit is validated, stored as a new version by its author, and binds approval to that version', async () => {
    const tools = standardTools();
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', mergePlan) });
    const run = await h.start('merge PR 7', 'UREQ');
    const v1 = (await h.store.getPlanVersion(run.id, 1))!.plan;
    const broken = { ...v1, steps: [...v1.steps, { id: 's3', title: 'x', tool: 'merge_thing', args: { number: 'eight' }, dependsOn: ['s9'] }] };
    const check = await h.agent.checkEdit({ runId: run.id, planVersion: 1, plan: broken });
    expect(check).toEqual({
      ok: false,
      error: expect.arrayContaining([
        { code: 'unknown-step', message: 's3.dependsOn: unknown step s9' },
        { code: 'invalid-args', message: expect.stringMatching(/^s3\.args\.number: /) },
      ]),
    });
    expect(await h.agent.editPlan({ runId: run.id, planVersion: 1, userId: 'UREQ', plan: broken })).toMatchObject({ ok: false });
    expect(await h.store.listPlanVersions(run.id)).toHaveLength(1);

    const edited = { ...v1, steps: [v1.steps[0]!, { ...v1.steps[1]!, args: { number: 8 } }] };
    const saved = await h.agent.editPlan({ runId: run.id, planVersion: 1, userId: 'UEDIT', plan: edited });
    expect(saved.ok && saved.value).toMatchObject({ version: 2, authorKind: 'human', authorId: 'UEDIT', parentVersion: 1 });
    const [, second] = h.surface.of(run.id, 'plan');
    expect(second?.proposal.diff).toEqual([{ text: 'step 2 number: 7 → 8', target: true }]);
    expect(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'plan-changed' }),
    });
    await h.agent.decide({ runId: run.id, planVersion: 2, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    expect(tools.merge.calls.map((c) => c.args)).toEqual([{ number: 8 }]);
    expect((await h.store.listSteps(run.id)).map((s) => `${s.planVersion}/${s.stepId}`)).toEqual(['2/s1', '2/s2']);
  });

  it('a revision asks the planner with the instruction and the current plan', async () => {
    const tools = standardTools();
    const llm = new ScriptedLlm().on('planner', mergePlan).on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'read_thing', args: { key: 'pr' } }] }));
    h = makeHarness({ store: db.store, tools: tools.all, llm });
    const run = await h.start('merge PR 7', 'UREQ');
    expect(await h.agent.revisePlan({ runId: run.id, planVersion: 1, userId: 'UREQ', instruction: 'do not merge, only look' })).toEqual({
      ok: true,
      value: undefined,
    });
    await h.agent.idle();
    const prompt = llm.prompts()[1]!;
    expect(prompt).toContain('do not merge, only look');
    expect(prompt).toContain('"tool":"merge_thing"');
    const versions = await h.store.listPlanVersions(run.id);
    expect(versions[1]).toMatchObject({ version: 2, authorKind: 'planner', parentVersion: 1 });
    expect(said(versions[1]!.reason)).toMatch(/revised at <@UREQ>'s request/);
    expect(h.surface.of(run.id, 'plan')[1]?.proposal.diff).toEqual([{ text: 'removed step “step s2”', target: false }]);
  });

  it('a plan made only of questions asks the requester, and the answer plans again', async () => {
    const tools = standardTools();
    const llm = new ScriptedLlm()
      .on('planner', plannerAnswer({ steps: [], questions: ['Which repository?'], confidence: 0.2 }))
      .on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'read_thing', args: { key: 'acme/api' } }] }));
    h = makeHarness({ store: db.store, tools: tools.all, llm, settings: { autoRunReadOnly: true } });
    const run = await h.start('check the repo', 'UREQ');
    expect((await h.store.getRun(run.id))?.status).toBe('awaiting-answer');
    expect(h.surface.of(run.id, 'questions')[0]?.questions).toEqual(['Which repository?']);
    expect(h.surface.of(run.id, 'escalation')).toEqual([]);
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'acme/api please' })).toBe('answered');
    await h.agent.idle();
    expect(llm.prompts()[1]).toMatch(/<data source="answer 1 by UREQ">\n\{\n "question": "Which repository\?",\n "answer": "acme\/api please"\n\}\n<\/data>/);
    expect(tools.read.calls).toHaveLength(1);
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
  });

  it('without a planner model the requester is told how to configure one', async () => {
    h = makeHarness({ store: db.store, tools: standardTools().all, llm: new ScriptedLlm([]) });
    const run = await h.start('anything');
    expect(said(h.surface.of(run.id, 'notice')[0]?.text)).toMatch(/PLANNER_MODEL.*OPENAI_API_KEY/);
    expect((await h.store.getRun(run.id))?.status).toBe('failed');
  });

  it('a rejected plan never runs', async () => {
    const tools = standardTools();
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', mergePlan), approvers: ['UAPP'] });
    const run = await h.start('merge PR 7', 'UREQ');
    expect(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UOTHER', decision: 'reject' })).toMatchObject({ ok: false });
    expect(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UREQ', decision: 'reject' })).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(tools.all.every((t) => t.calls.length === 0)).toBe(true);
    const summary = h.surface.of(run.id, 'summary')[0]?.summary;
    expect(summary).toMatchObject({ outcome: 'rejected' });
    expect(said(summary?.reason)).toBe('Rejected by <@UREQ>.');
  });

  it('keeps secrets out of the database: task, edited plans, answers', async () => {
    const tools = standardTools();
    const llm = new ScriptedLlm().on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'ask_human', args: { question: 'Which token?' } }] }));
    h = makeHarness({ store: db.store, tools: tools.all, llm });
    const run = await h.start('deploy using s3cret-value', 'UREQ');
    expect((await h.store.getRun(run.id))?.task).toBe('deploy using [redacted]');
    const v1 = (await h.store.getPlanVersion(run.id, 1))!.plan;
    const edited = { ...v1, steps: [{ ...v1.steps[0]!, args: { question: 'Is ghp_abcdefghijklmnopqrstuvwxyz0123456789 yours?' } }] };
    expect((await h.agent.editPlan({ runId: run.id, planVersion: 1, userId: 'UREQ', plan: edited })).ok).toBe(true);
    expect((await h.store.getPlanVersion(run.id, 2))!.plan.steps[0]!.args).toEqual({ question: 'Is [redacted] yours?' });
    await h.agent.decide({ runId: run.id, planVersion: 2, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'it is xoxb-1234567890-abcdefgh' });
    await h.agent.idle();
    const stored = JSON.stringify([
      await h.store.listQuestions(run.id),
      await h.store.listSteps(run.id),
      await h.store.listEvents(run.id),
      await h.store.listAttempts(run.id),
    ]);
    expect(stored).not.toMatch(/s3cret-value|ghp_abc|xoxb-123/);
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
  });
});

describe('an edit cut short by a stop', () => {
  /** The first writes of an edit of v1, as a process that died there left them: the run planning, and maybe v2 stored. */
  async function editCutShort(withVersion: boolean, started: 'plan-edit-started' | 'revision-requested' = 'plan-edit-started') {
    const tools = standardTools();
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', mergePlan), approvers: ['UAPP'], soleOwner: true });
    const run = await h.start('merge 7', 'UREQ');
    const v1 = (await h.store.getPlanVersion(run.id, 1))!.plan;
    const edited = { ...v1, steps: [v1.steps[0]!, { ...v1.steps[1]!, args: { number: 8 } }] };
    expect(
      await h.store.decide({
        runId: run.id,
        planVersion: 1,
        from: ['awaiting-approval'],
        to: 'planning',
        event:
          started === 'plan-edit-started'
            ? { type: 'plan-edit-started', data: { version: 1, by: 'UREQ' } }
            : { type: 'revision-requested', data: { version: 1, by: 'UREQ', instruction: 'merge 8 instead' } },
      }),
    ).toMatchObject({ ok: true });
    if (withVersion)
      await h.store.addPlanVersion({ runId: run.id, plan: edited, authorKind: 'human', authorId: 'UREQ', parentVersion: 1, reason: null, proposed: {} });
    await h.agent.shutdown(1000);
    // The next process: no planner is scripted, so planning the run again from its task would fail the test.
    h = makeHarness({ store: db.store, tools: tools.all, approvers: ['UAPP'], soleOwner: true, owner: 'replica-b' });
    await h.agent.resume();
    await h.agent.idle();
    return { run, edited, tools };
  }

  it('whose version was stored: the edit is proposed as the person made it, its replay is told it was saved, and it runs once approved', async () => {
    const { run, tools, edited } = await editCutShort(true);
    expect(await h.store.getRun(run.id)).toMatchObject({ status: 'awaiting-approval', currentPlanVersion: 2 });
    expect(h.surface.of(run.id, 'plan').map((p) => [p.proposal.version, p.proposal.authorKind, p.proposal.authorId])).toEqual([[2, 'human', 'UREQ']]);
    // The submission, replayed from the inbox: the same edit is the one stored, so it counts as saved (nothing new).
    const replayed = await h.agent.editPlan({ runId: run.id, planVersion: 1, userId: 'UREQ', plan: edited });
    expect(replayed.ok && replayed.value.version).toBe(2);
    const other = { ...edited, steps: [edited.steps[0]!, { ...edited.steps[1]!, args: { number: 9 } }] };
    expect(await h.agent.editPlan({ runId: run.id, planVersion: 1, userId: 'UREQ', plan: other })).toMatchObject({ ok: false });
    expect(await h.store.listPlanVersions(run.id)).toHaveLength(2);
    await h.agent.decide({ runId: run.id, planVersion: 2, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    expect(tools.merge.calls.map((c) => c.args)).toEqual([{ number: 8 }]);
  });

  it('whose version was not stored: the plan waits again, so the replayed edit is made', async () => {
    const { run, edited } = await editCutShort(false);
    expect(await h.store.getRun(run.id)).toMatchObject({ status: 'awaiting-approval', currentPlanVersion: 1 });
    const saved = await h.agent.editPlan({ runId: run.id, planVersion: 1, userId: 'UREQ', plan: edited });
    expect(saved.ok && saved.value).toMatchObject({ version: 2, authorKind: 'human', authorId: 'UREQ' });
  });

  it('a revision whose planner was cut short: the plan waits again and the thread is told to ask again', async () => {
    const { run } = await editCutShort(false, 'revision-requested');
    expect(await h.store.getRun(run.id)).toMatchObject({ status: 'awaiting-approval', currentPlanVersion: 1 });
    expect(h.surface.of(run.id, 'notice').map((n) => said(n.text))).toEqual([
      'The revision you asked for was cut short by a restart; v1 still stands. Ask again with Modify.',
    ]);
  });
});
