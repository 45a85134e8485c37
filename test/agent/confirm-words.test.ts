/**
 * What a Confirm's answers say in the thread names the step by its title, as the Confirm message and the plan do:
 * a person never saw the step's id ("s2") or the plan's version number in the Confirm they clicked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAskHumanTool } from '../../src/integrations/tools/thread/ask-human.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { fakeTool } from './support/fake-tools.ts';
import { said } from '../helpers/words.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';
import { spoken } from './support/spoken.ts';
import { commentTool, createThingTool, mergePullTool } from './support/target-tools.ts';

const db = useMemoryStore();
let h: Harness;
afterEach(() => {
  h.llm.assertDone();
  expect(h.errors).toEqual([]);
});

function tools() {
  return [createAskHumanTool(), mergePullTool(), commentTool(), createThingTool()];
}

/** s2 merges the PR the requester names (a Confirm); r1, which undoes s0, comments on it (a Confirm too, on an Abort). */
const sketch = {
  steps: [
    { id: 's1', title: 'Ask which PR', tool: 'ask_human', args: { question: 'Which PR?' } },
    { id: 's0', title: 'Open a note', tool: 'create_thing', args: { title: 'note' }, dependsOn: ['s1'] },
    { id: 's2', title: 'Merge the PR they named', tool: 'merge_pull', args: { repo: 'acme/api', number: '{{steps.s1.output.answer}}' }, dependsOn: ['s0'] },
  ],
  rollback: [
    {
      id: 'r1',
      title: 'Say on the PR that it was undone',
      tool: 'comment',
      args: { repo: 'acme/api', number: '{{steps.s1.output.answer}}', body: 'undone' },
      undoes: 's0',
    },
  ],
};
const lateUndo = plannerAnswer(sketch);
/** The same, but r1 comments on a tracking issue the plan names: an Abort's rollback needs no Confirm. */
const fixedUndo = plannerAnswer({
  ...sketch,
  rollback: [{ ...sketch.rollback[0]!, title: 'Say so on the tracking issue', args: { repo: 'acme/api', number: 1, body: 'undone' } }],
});

/** Approved, and answered "77": s2 waits for its Confirm. */
async function waitingForConfirm(plan = lateUndo) {
  h = makeHarness({ store: db.store, tools: tools(), llm: new ScriptedLlm().on('planner', plan), approvers: ['UAPP', 'UAPP2'], soleOwner: true });
  const run = await h.start('merge the PR I name', 'UREQ');
  await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
  await h.agent.idle();
  expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: '77' })).toBe('answered');
  await h.agent.idle();
  return run;
}

const click = (runId: string, stepId: string, userId: string, decision: 'confirm' | 'abort', planVersion = 1) =>
  h.agent.confirmTarget({ runId, planVersion, stepId, userId, decision }).then(spoken);

const summaryReason = (runId: string) => said(h.surface.of(runId, 'summary')[0]?.summary.reason);

describe('the words of a Confirm’s answers', () => {
  it('a rollback that went on after a Confirm names the confirmed step by its title in the summary', async () => {
    const run = await waitingForConfirm();
    expect(await click(run.id, 's2', 'UREQ', 'abort')).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    // The rollback stops at r1's own Confirm; confirming it ends the run, which says why it went on.
    expect(await click(run.id, 'r1', 'UAPP', 'confirm')).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(summaryReason(run.id)).toMatch(/^Aborted; the rollback went on once <@UAPP> confirmed what “Say on the PR that it was undone” acts on\./);
  });

  it('an Abort instead of a Confirm says what the person declined to confirm, by its title', async () => {
    const run = await waitingForConfirm(fixedUndo);
    expect(await click(run.id, 's2', 'UREQ', 'abort')).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(summaryReason(run.id)).toMatch(/^Aborted by <@UREQ> instead of confirming what “Merge the PR they named” acts on\./);
  });

  it('a click on a step that waits for no Confirm names it by its title, never by id or plan version', async () => {
    const run = await waitingForConfirm();
    expect(await click(run.id, 's1', 'UAPP', 'confirm')).toEqual({
      ok: false,
      error: { code: 'not-waiting', message: '“Ask which PR” is not waiting for a Confirm; nothing was done.' },
    });
    expect(await click(run.id, 's2', 'UAPP', 'confirm', 2)).toEqual({
      ok: false,
      error: { code: 'not-waiting', message: 'This step is not waiting for a Confirm; nothing was done.' },
    });
  });

  it('a Confirm of a plan a new version replaced says the plan changed, in words', async () => {
    // s3 fails beside s2's wait; a Replan of it proposes v2 while s2's Confirm of v1 is still asked.
    const withFailure = plannerAnswer({
      ...sketch,
      steps: [...sketch.steps, { id: 's3', title: 'Break', tool: 'break_thing', args: { key: 'x' }, dependsOn: ['s1'] }],
    });
    const replanned = plannerAnswer({ steps: [{ id: 'n1', title: 'Open a note', tool: 'create_thing', args: { title: 'again' } }] });
    h = makeHarness({
      store: db.store,
      tools: [...tools(), { ...fakeTool({ name: 'break_thing', risk: 'write', run: () => ({ status: 'error', error: { message: 'boom' } }) }), targets: [] }],
      llm: new ScriptedLlm().on('planner', withFailure).on('planner', replanned),
      approvers: ['UAPP', 'UAPP2'],
      soleOwner: true,
    });
    const run = await h.start('merge the PR I name', 'UREQ');
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: '77' })).toBe('answered');
    await h.agent.idle();
    const [escalation] = (await h.store.listEscalations(run.id)).filter((e) => e.status === 'open');
    expect(await h.agent.resolveEscalation({ escalationId: escalation!.id, userId: 'UAPP', action: 'replan' })).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect((await h.store.getRun(run.id))?.currentPlanVersion).toBe(2);
    const refused = await click(run.id, 's2', 'UAPP', 'confirm');
    expect(refused).toEqual({ ok: false, error: expect.objectContaining({ code: 'plan-changed' }) });
    expect(refused.ok ? '' : refused.error.message).toBe('The plan has changed since this was asked (a newer plan is in this thread); nothing was done.');
  });
});
