/**
 * A plan past TANDEM_APPROVAL_TTL_S, or a Confirm past it, clicked before any housekeeping sweep expired it (the
 * sweep passes every min(60 s, TTL/2), longer after a restart): the click expires it, as the sweep would have, and
 * runs nothing (CONTRACT §5: "never run on an old click"; "an expired Confirm aborts its step").
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAskHumanTool } from '../../src/integrations/tools/thread/ask-human.ts';
import { eventsOfType } from '../../src/agent/model/run-events.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';
import { said } from '../helpers/words.ts';
import { mergePullTool } from './support/target-tools.ts';

const db = useMemoryStore();
/** A minute to live; the agent's clock is moved past it (no sweep runs in these tests). */
const TTL_S = 60;
let ahead = 0;
const clock = () => new Date(Date.now() + ahead);
let h: Harness;
afterEach(() => {
  ahead = 0;
  expect(h.errors).toEqual([]);
});

function harness(tools: Parameters<typeof makeHarness>[0]['tools'], llm: ScriptedLlm, extra: Partial<Parameters<typeof makeHarness>[0]> = {}) {
  h = makeHarness({ store: db.store, tools, llm, approvers: ['UAPP'], settings: { housekeeping: { remindAfterS: 30, waitTtlS: TTL_S } }, clock, ...extra });
  return h;
}

const oneWrite = plannerAnswer({ steps: [{ id: 's1', tool: 'create_thing', args: { title: 't' } }] });

describe('a plan clicked after its time to live', () => {
  it('Approve is refused as expired and runs nothing; the run ends expired, as the sweep would have ended it', async () => {
    const tools = standardTools();
    harness(tools.all, new ScriptedLlm().on('planner', oneWrite));
    const run = await h.start('make a thing', 'UREQ');
    ahead = (TTL_S + 1) * 1000;
    const answer = await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    expect(answer).toEqual({ ok: false, error: expect.objectContaining({ code: 'wait-expired' }) });
    if (!answer.ok) expect(said(answer.error.message)).toContain('This plan expired');
    expect(tools.write.calls).toEqual([]);
    expect((await h.store.getRun(run.id))?.status).toBe('expired');
    expect(eventsOfType(await h.store.listEvents(run.id), 'plan-expired').map((e) => e.data.version)).toEqual([1]);
    expect(await h.store.listApprovals(run.id)).toEqual([]);
    // The thread hears it once, as from the sweep: the summary says it expired.
    expect(h.surface.of(run.id, 'summary')).toHaveLength(1);
  });

  it('a second before its time to live, the same click still runs the plan', async () => {
    const tools = standardTools();
    harness(tools.all, new ScriptedLlm().on('planner', oneWrite));
    const run = await h.start('make a thing', 'UREQ');
    ahead = (TTL_S - 1) * 1000;
    expect(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(tools.write.calls).toHaveLength(1);
  });

  it('"Approve anyway" on its low-confidence escalation is refused as expired and runs nothing', async () => {
    const tools = standardTools();
    harness(tools.all, new ScriptedLlm().on('planner', plannerAnswer({ confidence: 0.3, steps: [{ id: 's1', tool: 'create_thing', args: { title: 't' } }] })));
    const run = await h.start('make a thing', 'UREQ');
    const [doubt] = await h.store.listEscalations(run.id);
    expect(doubt).toMatchObject({ kind: 'low-confidence', status: 'open' });
    ahead = (TTL_S + 1) * 1000;
    const answer = await h.agent.resolveEscalation({ escalationId: doubt!.id, userId: 'UAPP', action: 'approve' });
    await h.agent.idle();
    expect(answer).toEqual({ ok: false, error: expect.objectContaining({ code: 'wait-expired' }) });
    expect(tools.write.calls).toEqual([]);
    expect((await h.store.getRun(run.id))?.status).toBe('expired');
    expect(await h.store.listApprovals(run.id)).toEqual([]);
  });
});

/** An approved run whose merge of the PR the requester named (666) waits for a Confirm, within its time to live. */
async function mergeWaitingOnConfirm() {
  const merge = mergePullTool();
  const plan = plannerAnswer({
    steps: [
      { id: 's1', tool: 'ask_human', args: { question: 'Which PR?' } },
      { id: 's2', tool: 'merge_pull', args: { repo: 'acme/api', number: '{{steps.s1.output.answer}}' }, dependsOn: ['s1'] },
    ],
  });
  harness([createAskHumanTool(), merge], new ScriptedLlm().on('planner', plan), { approvers: ['UREQ', 'UAPP'], soleOwner: true });
  const run = await h.start('merge the PR I name', 'UREQ');
  expect(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).toEqual({ ok: true, value: undefined });
  await h.agent.idle();
  expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: '666' })).toBe('answered');
  await h.agent.idle();
  expect(h.surface.of(run.id, 'confirm')).toHaveLength(1);
  return { run, merge };
}

describe('a Confirm clicked after its time to live', () => {
  it('is refused as expired, its step is aborted as the sweep would abort it, and the write never runs', async () => {
    const { run, merge } = await mergeWaitingOnConfirm();
    ahead = (TTL_S + 1) * 1000;
    const answer = await h.agent.confirmTarget({ runId: run.id, planVersion: 1, stepId: 's2', userId: 'UAPP', decision: 'confirm' });
    await h.agent.idle();
    expect(answer).toEqual({ ok: false, error: expect.objectContaining({ code: 'wait-expired' }) });
    if (!answer.ok) expect(said(answer.error.message)).toContain('This Confirm expired');
    expect(merge.calls).toEqual([]);
    expect((await h.store.listConfirmations(run.id))[0]).toMatchObject({ status: 'aborted', decidedBy: 'tandem:expired' });
    expect((await h.store.listSteps(run.id)).find((s) => s.stepId === 's2')).toMatchObject({ status: 'skipped', error: { code: 'target-expired' } });
  });

  it('of a run cancelled before the click, is refused as the run having ended, not as expired, and nothing is stored as expired', async () => {
    const { run, merge } = await mergeWaitingOnConfirm();
    expect((await h.agent.cancel({ runId: run.id, userId: 'UREQ' })).ok).toBe(true);
    await h.agent.idle();
    ahead = (TTL_S + 1) * 1000;
    const answer = await h.agent.confirmTarget({ runId: run.id, planVersion: 1, stepId: 's2', userId: 'UAPP', decision: 'confirm' });
    await h.agent.idle();
    expect(answer).toEqual({ ok: false, error: expect.objectContaining({ code: 'run-ended' }) });
    expect(merge.calls).toEqual([]);
    expect((await h.store.listConfirmations(run.id))[0]).toMatchObject({ status: 'pending' });
    expect(h.surface.of(run.id, 'confirm-expired')).toEqual([]);
  });
});
