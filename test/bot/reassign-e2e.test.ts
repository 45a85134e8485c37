import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { ESCALATION_ACTIONS } from '../../src/bot/views/run/escalation.ts';
import { ANSWER_BLOCK, ANSWER_INPUT, QUESTION_ANSWER_ACTION } from '../../src/bot/views/run/question.ts';
import { REASSIGN_ACTION, REASSIGN_BLOCK, REASSIGN_CALLBACK, REASSIGN_INPUT } from '../../src/bot/views/run/reassign.ts';
import { eventsOfType } from '../../src/agent/model/run-events.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, hasButtons, isPlan, isSummary, slackReaders } from '../fakes/thread-messages.ts';
import { newEphemeral, openModal, submitReassign } from '../fakes/modal-steps.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
  for (const id of ['UREQ', 'UAPP1', 'UAPP2', 'UOUTSIDER', 'UOTHER', 'UTHIRD']) e.fake.model.users.set(id, { id, name: id, real_name: id });
  e.fake.model.users.set('UAPPBOT', { id: 'UAPPBOT', name: 'deploybot', real_name: 'Deploy bot', is_bot: true });
  e.fake.model.users.set('UGONE', { id: 'UGONE', name: 'gone', real_name: 'Gone', deleted: true });
});
afterEach(() => e.stop());

const { current } = slackReaders(() => e.fake);
const ephemerals = (user: string) =>
  e.fake.model
    .ephemeralsFor(user)
    .map((m) => m.text)
    .join('\n');

async function mention(user: string, text: string, threadTs?: string) {
  const sent = e.driver.mention({ channel: 'C1', user, text: `<@UBOT> ${text}`, ...(threadTs ? { threadTs } : {}) });
  expect((await sent).status).toBe(200);
  return sent.ts;
}

async function failedWrite() {
  e.tools.changeFailures = 1;
  const ts = await mention('UREQ', 'flaky change please');
  await e.driver.clickButtonIn(await e.waitForMessage(ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
  const escalation = await e.waitForMessage(ts, (m) => m.text.includes('A step failed') && hasButtons(m), 'the escalation');
  const [run] = (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === ts);
  return { ts, escalation, runId: run!.id };
}

async function askedQuestion() {
  const ts = await mention('UREQ', 'ask first then change');
  await e.driver.clickButtonIn(await e.waitForMessage(ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
  const question = await e.waitForMessage(ts, (m) => m.text.includes('Which cluster should I use?'), 'the question');
  const [run] = (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === ts);
  return { ts, question, runId: run!.id };
}

async function reassign(message: FakeMessage, by: string, to: string) {
  const modal = await openModal(e, message, by, REASSIGN_ACTION);
  expect(modal.view.callback_id).toBe(REASSIGN_CALLBACK);
  await submitReassign(e, modal, by, to);
}

const handOvers = async (runId: string) => eventsOfType(await db.store.listEvents(runId), 'wait-reassigned').map((event) => event.data);

describe('Reassign on an escalation', () => {
  it('hands it over: the message says whom it waits on, the person is pinged, it is recorded, they can answer, and the reminder pings them', async () => {
    const { ts, escalation, runId } = await failedWrite();
    await reassign(escalation, 'UAPP1', 'UAPP2');

    await e.fake.waitUntil(() => blocksText(current(escalation)).includes('Waiting on <@UAPP2> — reassigned by <@UAPP1>'), 5000, 'the message marked');
    expect(hasButtons(current(escalation))).toBe(true); // still answerable
    const ping = await e.waitForMessage(ts, (m) => m.text.startsWith('<@UAPP2> <@UAPP1> handed'), 'the ping');
    expect(ping.threadTs).toBe(ts);
    expect(await handOvers(runId)).toEqual([{ wait: 'escalation', key: expect.any(String), to: 'UAPP2', from: null, by: 'UAPP1' }]);

    // The reminder, half an hour on, pings the person it was handed to.
    await e.agent.housekeep(new Date(Date.now() + 1801 * 1000));
    await e.waitForMessage(ts, (m) => m.text.includes('<@UAPP2> this is still waiting on you'), 'the reminder to the new addressee');

    await e.driver.clickButtonIn(current(escalation), ESCALATION_ACTIONS.retry, 'UAPP2');
    const summary = await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(summary.text).toContain('Succeeded');
    expect(e.tools.calls.filter((call) => call === 'change_thing:alpha')).toHaveLength(2);
  });

  it.each([
    ['a bot', 'UAPPBOT', 'is an app, not a person'],
    ['a deactivated user', 'UGONE', 'is deactivated'],
    ['someone Slack does not know', 'UNOBODY', 'I could not find <@UNOBODY> in this workspace'],
    ['yourself', 'UAPP1', 'That is you'],
    ['someone who may not decide it', 'UOUTSIDER', '<@UOUTSIDER> may not answer this'],
  ])('to %s is refused in an ephemeral message, and nothing changes', async (_what, to, words) => {
    const { ts, escalation, runId } = await failedWrite();
    const before = e.fake.model.ephemeralsFor('UAPP1').length;
    const posted = e.thread(ts).length;
    await reassign(escalation, 'UAPP1', to);
    const refusal = await newEphemeral(e, 'UAPP1', before);
    expect(refusal).toContain(words);
    expect(refusal).toContain('Nothing changed');
    expect(await handOvers(runId)).toEqual([]);
    expect(blocksText(current(escalation))).not.toContain('Waiting on');
    expect(e.thread(ts)).toHaveLength(posted);
  });

  it('goes ahead when Slack cannot say who the person is (users.info refused for a missing scope): the policy still decides', async () => {
    const { escalation, runId } = await failedWrite();
    e.fake.failWith('users.info', 'missing_scope');
    await reassign(escalation, 'UAPP1', 'UAPP2');
    await e.fake.waitUntil(() => blocksText(current(escalation)).includes('Waiting on <@UAPP2>'), 5000, 'the message marked');
    expect(await handOvers(runId)).toEqual([{ wait: 'escalation', key: expect.any(String), to: 'UAPP2', from: null, by: 'UAPP1' }]);
  });

  it('by someone who may not answer it is refused, and nothing changes', async () => {
    const { escalation, runId } = await failedWrite();
    await reassign(escalation, 'UOUTSIDER', 'UAPP2');
    expect(await newEphemeral(e, 'UOUTSIDER', 0)).toContain('Only someone who may answer this can hand it');
    expect(await handOvers(runId)).toEqual([]);
  });

  it('on an escalation already answered is refused, and nothing changes', async () => {
    const { ts, escalation, runId } = await failedWrite();
    const modal = await openModal(e, escalation, 'UAPP1', REASSIGN_ACTION); // opened before the answer
    await e.driver.clickButtonIn(escalation, ESCALATION_ACTIONS.retry, 'UAPP2');
    await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    await e.driver.submitView({
      user: 'UAPP1',
      view: { id: modal.id, callback_id: REASSIGN_CALLBACK, private_metadata: String(modal.view.private_metadata) },
      values: { [REASSIGN_BLOCK]: { [REASSIGN_INPUT]: { type: 'users_select', selected_user: 'UAPP2' } } },
    });
    expect(await newEphemeral(e, 'UAPP1', 0)).toContain('no longer waiting');
    expect(await handOvers(runId)).toEqual([]);
  });

  it('refuses forged button values and forged form metadata', async () => {
    const { escalation, runId } = await failedWrite();
    await e.driver.click({ user: 'UAPP1', channel: 'C1', messageTs: escalation.ts, actionId: REASSIGN_ACTION, value: '{"w":"e","e":"esc_not_there"' });
    expect(await newEphemeral(e, 'UAPP1', 0)).toContain('not from a wait I recognise');
    await e.driver.click({ user: 'UAPP1', channel: 'C1', messageTs: escalation.ts, actionId: REASSIGN_ACTION, value: '{"w":"e","e":"esc_not_there"}' });
    await e.fake.waitUntil(() => e.fake.model.views.size > 0, 5000, 'the modal for the forged id');
    const modal = [...e.fake.model.views.values()].at(-1)!;
    expect(String(modal.view.private_metadata)).toContain('esc_not_there');
    await e.driver.submitView({
      user: 'UAPP1',
      view: { id: modal.id, callback_id: REASSIGN_CALLBACK, private_metadata: String(modal.view.private_metadata) },
      values: { [REASSIGN_BLOCK]: { [REASSIGN_INPUT]: { type: 'users_select', selected_user: 'UAPP2' } } },
    });
    expect(await newEphemeral(e, 'UAPP1', 1)).toContain('no longer exists');
    const forged = await e.driver.submitView({
      user: 'UAPP1',
      view: { id: modal.id, callback_id: REASSIGN_CALLBACK, private_metadata: '{"ref":{"w":"x"},"c":"C1","t":"1.2"}' },
      values: { [REASSIGN_BLOCK]: { [REASSIGN_INPUT]: { type: 'users_select', selected_user: 'UAPP2' } } },
    });
    expect(forged.status).toBe(200);
    await e.agent.idle();
    expect(await handOvers(runId)).toEqual([]);
    expect(blocksText(current(escalation))).not.toContain('Waiting on');
  });
});

describe('Reassign on a question', () => {
  async function answer(question: FakeMessage, user: string, text: string) {
    const modal = await openModal(e, question, user, QUESTION_ANSWER_ACTION);
    return e.driver.submitView({
      user,
      view: { id: modal.id, callback_id: String(modal.view.callback_id), private_metadata: String(modal.view.private_metadata) },
      values: { [ANSWER_BLOCK]: { [ANSWER_INPUT]: { type: 'plain_text_input', value: text } } },
    });
  }

  it('lets the person it was handed to answer; someone it was handed away from is told who has it', async () => {
    const { ts, question, runId } = await askedQuestion();
    await reassign(question, 'UREQ', 'UOTHER');
    await e.waitForMessage(ts, (m) => m.text.startsWith('<@UOTHER> <@UREQ> handed'), 'the ping');
    await e.fake.waitUntil(() => blocksText(current(question)).includes('Waiting on <@UOTHER> — reassigned by <@UREQ>'), 5000, 'the question marked');

    await reassign(current(question), 'UOTHER', 'UTHIRD');
    await e.fake.waitUntil(() => blocksText(current(question)).includes('Waiting on <@UTHIRD> — reassigned by <@UOTHER>'), 5000, 'marked again');
    expect(blocksText(current(question)).match(/Waiting on/g)).toHaveLength(1);
    expect((await handOvers(runId)).map((h) => [h.from, h.to])).toEqual([
      [null, 'UOTHER'],
      ['UOTHER', 'UTHIRD'],
    ]);

    // Handed away: UOTHER's answer is refused with who has it now, and the run still waits.
    await answer(current(question), 'UOTHER', 'production');
    expect(await newEphemeral(e, 'UOTHER', 0)).toContain('This question was handed to <@UTHIRD>');
    expect(e.tools.calls).not.toContain('change_thing:production');

    await answer(current(question), 'UTHIRD', 'staging');
    const summary = await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(summary.text).toContain('Succeeded');
    expect(e.tools.calls).toContain('change_thing:staging');
    expect(blocksText(current(question))).toContain('Answered by <@UTHIRD>: staging');
  });

  it('a stranger to the run may not hand it on', async () => {
    const { question, runId } = await askedQuestion();
    await reassign(question, 'UOUTSIDER', 'UOTHER');
    expect(await newEphemeral(e, 'UOUTSIDER', 0)).toContain('Only someone who may answer this');
    expect(await handOvers(runId)).toEqual([]);
    expect(ephemerals('UOTHER')).toBe('');
  });
});

describe('"Waiting for you" in App Home', () => {
  /** The sections between the "Waiting for you" header and the next header, as text. */
  async function waitingFor(user: string): Promise<string[]> {
    const before = e.fake.model.homeTabs.get(user)?.updates ?? -1;
    expect((await e.driver.appHomeOpened(user)).status).toBe(200);
    await e.fake.waitUntil(() => (e.fake.model.homeTabs.get(user)?.updates ?? -1) > before, 5000, `${user}'s App Home`);
    const blocks = e.fake.model.homeTabs.get(user)!.view.blocks as {
      type: string;
      text?: { text: string };
      elements?: { text: string }[];
      accessory?: { url?: string };
    }[];
    const start = blocks.findIndex((b) => b.type === 'header' && b.text!.text.startsWith('Waiting for you'));
    const end = blocks.findIndex((b, i) => i > start && b.type === 'header');
    return blocks.slice(start + 1, end).map((b) => `${b.text?.text ?? b.elements?.[0]?.text ?? ''} ${b.accessory?.url ?? ''}`);
  }
  const idIn = (lines: string[], runId: string) => lines.filter((line) => line.includes(runId));

  it("lists exactly the viewer's waits, with links to their messages; a private channel's only to its members", async () => {
    const escalated = await failedWrite();
    const asked = await askedQuestion();
    // A plan waiting for approval in a private channel UAPP1 is not in.
    e.fake.model.channels.add('C9');
    e.fake.model.channelMembers.set('C9', ['UREQ', 'UAPP2']);
    const sent = e.driver.mention({ channel: 'C9', user: 'UREQ', text: '<@UBOT> safe change please' });
    expect((await sent).status).toBe(200);
    await e.fake.waitUntil(() => e.fake.model.thread('C9', sent.ts).some((m) => m.text.startsWith('Plan v1:')), 10_000, 'the private plan');
    const [privateRun] = (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === sent.ts);

    // Runs of earlier tests share the store: only this test's three runs are looked at.
    const mine = (lines: string[]) => lines.filter((line) => [escalated.runId, asked.runId, privateRun!.id].some((id) => line.includes(id)));
    const approver1 = mine(await waitingFor('UAPP1'));
    expect(approver1).toHaveLength(2);
    expect(idIn(approver1, escalated.runId)[0]).toContain('Decide how the run goes on');
    expect(idIn(approver1, escalated.runId)[0]).toContain(`/archives/C1/p${escalated.escalation.ts.replace('.', '')}`);
    expect(idIn(approver1, asked.runId)[0]).toContain('Answer a question');
    expect(idIn(approver1, asked.runId)[0]).toContain(`/archives/C1/p${asked.question.ts.replace('.', '')}`);
    expect(idIn(approver1, privateRun!.id)).toEqual([]);

    const approver2 = mine(await waitingFor('UAPP2'));
    expect(approver2).toHaveLength(3);
    expect(idIn(approver2, privateRun!.id)[0]).toContain('Approve, modify or reject the plan');

    // The requester may answer their question, but approves and decides nothing; a stranger sees nothing.
    const requester = mine(await waitingFor('UREQ'));
    expect(requester.map((line) => line.includes(asked.runId))).toEqual([true]);
    expect(await waitingFor('UOTHER')).toEqual([expect.stringContaining('Nothing is waiting for you')]);

    // Handed to UOTHER, the question is theirs to answer, and App Home says who handed it over.
    await reassign(asked.question, 'UREQ', 'UOTHER');
    await e.waitForMessage(asked.ts, (m) => m.text.startsWith('<@UOTHER> <@UREQ> handed'), 'the ping');
    const other = mine(await waitingFor('UOTHER'));
    expect(other).toHaveLength(1);
    expect(other[0]).toContain('Answer a question');
    expect(other[0]).toContain('handed to you by <@UREQ>');
  });
});
