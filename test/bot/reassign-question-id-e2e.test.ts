/**
 * A question's Reassign names the stored question by its id (not its words): the button on the first
 * post, on the plan's own questions and on the reminder's copy all name the same record; a forged or
 * stale id is refused and nothing changes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { ANSWER_BLOCK, ANSWER_INPUT, QUESTION_ANSWER_ACTION } from '../../src/bot/views/run/question.ts';
import { REASSIGN_ACTION } from '../../src/bot/views/run/reassign.ts';
import { eventsOfType } from '../../src/agent/model/run-events.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { hasButtons, isPlan } from '../fakes/thread-messages.ts';
import { newEphemeral, openModal, submitReassign } from '../fakes/modal-steps.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
  for (const id of ['UREQ', 'UAPP1', 'UAPP2', 'UOTHER']) e.fake.model.users.set(id, { id, name: id, real_name: id });
});
afterEach(() => e.stop());

const handOvers = async (runId: string) => eventsOfType(await db.store.listEvents(runId), 'wait-reassigned').map((event) => event.data);
const viewsOpened = () => e.fake.calls.filter((c) => c.method === 'views.open').length;

/** The value of the message's Reassign button, parsed. */
function reassignValue(message: FakeMessage): unknown {
  const button = (message.blocks ?? [])
    .flatMap((b) => ((b as { type?: string }).type === 'actions' ? (b as { elements: { action_id: string; value?: string }[] }).elements : []))
    .find((element) => element.action_id === REASSIGN_ACTION);
  return button && JSON.parse(button.value!);
}

async function runOf(ts: string) {
  const [run] = (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === ts);
  return run!;
}

describe("a question's Reassign is keyed by the stored question", () => {
  it("an ask_human step's question and its reminder copy name its id; a forged id and one answered meanwhile are refused", async () => {
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> ask first then change' });
    expect((await sent).status).toBe(200);
    await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
    const question = await e.waitForMessage(sent.ts, (m) => m.text.includes('Which cluster should I use?') && hasButtons(m), 'the question');
    const run = await runOf(sent.ts);
    const [stored] = await db.store.listQuestions(run.id);
    expect(reassignValue(question)).toEqual({ w: 'q', r: run.id, k: stored!.id });

    // The reminder posts the question again: its Reassign names the same record.
    await e.agent.housekeep(new Date(Date.now() + 1801 * 1000));
    await e.fake.waitUntil(
      () => e.thread(sent.ts).filter((m) => m.text.includes('Which cluster should I use?') && hasButtons(m)).length === 2,
      5000,
      'the copy',
    );
    const copy = e.thread(sent.ts).filter((m) => m.text.includes('Which cluster should I use?') && hasButtons(m))[1]!;
    expect(reassignValue(copy)).toEqual({ w: 'q', r: run.id, k: stored!.id });

    // A forged id in a well-formed value: the form opens (nothing is looked up first), its submission is refused.
    await submitReassign(e, await openModal(e, question, 'UREQ', REASSIGN_ACTION, JSON.stringify({ w: 'q', r: run.id, k: 'q_forged0000' })), 'UREQ', 'UOTHER');
    expect(await newEphemeral(e, 'UREQ', 0)).toContain('no longer waiting for anyone');
    // The words-keyed value of older messages is not an id: refused at the click.
    await e.driver.click({
      user: 'UREQ',
      channel: 'C1',
      messageTs: question.ts,
      actionId: REASSIGN_ACTION,
      value: JSON.stringify({ w: 'q', r: run.id, k: '0123456789abcdef' }),
    });
    expect(await newEphemeral(e, 'UREQ', 1)).toContain('not from a wait I recognise');

    // Opened before the answer, submitted after: that question waits for nobody any more.
    const late = await openModal(e, question, 'UREQ', REASSIGN_ACTION, JSON.stringify(reassignValue(question)));
    const opened = viewsOpened();
    await e.driver.clickButtonIn(question, QUESTION_ANSWER_ACTION, 'UREQ');
    await e.fake.waitUntil(() => viewsOpened() > opened, 5000, 'the answer modal');
    const answerModal = [...e.fake.model.views.values()].at(-1)!;
    await e.driver.submitView({
      user: 'UREQ',
      view: { id: answerModal.id, callback_id: String(answerModal.view.callback_id), private_metadata: String(answerModal.view.private_metadata) },
      values: { [ANSWER_BLOCK]: { [ANSWER_INPUT]: { type: 'plain_text_input', value: 'staging' } } },
    });
    await e.fake.waitUntil(() => e.tools.calls.includes('change_thing:staging'), 10_000, 'the answer acted on');
    await submitReassign(e, late, 'UREQ', 'UOTHER');
    expect(await newEphemeral(e, 'UREQ', 2)).toContain('no longer waiting for anyone');
    await e.agent.idle();
    expect(await handOvers(run.id)).toEqual([]);
  });

  it("the plan's own questions name their stored record, and a hand-over of them is recorded under its id", async () => {
    e.planner.answers.push({ goal: 'Find out first', confidence: 0.9, steps: [], rollback: [], questions: ['Which region should it go to?'] });
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> put it somewhere' });
    expect((await sent).status).toBe(200);
    const question = await e.waitForMessage(sent.ts, (m) => m.text.includes('Which region should it go to?') && hasButtons(m), 'the question');
    const run = await runOf(sent.ts);
    const [stored] = await db.store.listQuestions(run.id);
    expect(reassignValue(question)).toEqual({ w: 'q', r: run.id, k: stored!.id });

    await submitReassign(e, await openModal(e, question, 'UREQ', REASSIGN_ACTION, JSON.stringify(reassignValue(question))), 'UREQ', 'UOTHER');
    await e.waitForMessage(sent.ts, (m) => m.text.startsWith('<@UOTHER> <@UREQ> handed'), 'the ping');
    expect(await handOvers(run.id)).toEqual([{ wait: 'question', key: stored!.id, to: 'UOTHER', from: null, by: 'UREQ' }]);
  });
});
