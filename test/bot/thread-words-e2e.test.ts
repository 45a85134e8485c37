import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { ESCALATION_ACTIONS } from '../../src/bot/views/run/escalation.ts';
import { ANSWER_BLOCK, ANSWER_INPUT, QUESTION_ANSWER_ACTION } from '../../src/bot/views/run/question.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, hasButtons, isPlan, isSummary } from '../fakes/thread-messages.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
});
afterEach(() => e.stop());

async function mention(user: string, text: string, threadTs?: string) {
  const sent = e.driver.mention({ channel: 'C1', user, text: `<@UBOT> ${text}`, ...(threadTs ? { threadTs } : {}) });
  expect((await sent).status).toBe(200);
  return sent.ts;
}

async function openAnswer(question: FakeMessage, user: string) {
  const opened = e.fake.calls.filter((c) => c.method === 'views.open').length;
  await e.driver.clickButtonIn(question, QUESTION_ANSWER_ACTION, user);
  await e.fake.waitUntil(() => e.fake.calls.filter((c) => c.method === 'views.open').length > opened, 5000, 'the Answer modal');
  return [...e.fake.model.views.values()].at(-1)!;
}

function submitAnswer(modal: { id: string; view: Record<string, unknown> }, user: string, answer: string) {
  return e.driver.submitView({
    user,
    view: { id: modal.id, callback_id: String(modal.view.callback_id), private_metadata: String(modal.view.private_metadata) },
    values: { [ANSWER_BLOCK]: { [ANSWER_INPUT]: { type: 'plain_text_input', value: answer } } },
  });
}

describe('a question in the thread', () => {
  it('has an Answer button that opens a modal; the answer moves the run on and the question says who answered', async () => {
    const ts = await mention('UREQ', 'ask first then change');
    await e.driver.clickButtonIn(await e.waitForMessage(ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
    const question = await e.waitForMessage(ts, (m) => m.text.includes('Which cluster should I use?'), 'the question');
    expect(blocksText(question)).not.toMatch(/step `?s1/); // no step id in the thread

    const outsider = await openAnswer(question, 'UOUTSIDER');
    expect((await submitAnswer(outsider, 'UOUTSIDER', 'production')).status).toBe(200);
    await e.fake.waitUntil(() => e.fake.model.ephemeralsFor('UOUTSIDER').length > 0, 5000, 'the refusal');
    expect(blocksText(e.fake.model.findMessage('C1', question.ts)!)).not.toContain('Answered by');

    const modal = await openAnswer(question, 'UREQ');
    expect(JSON.stringify(modal.view)).toContain('Which cluster should I use?');
    expect((await submitAnswer(modal, 'UREQ', 'staging')).status).toBe(200);

    const summary = await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(summary.text).toContain('Succeeded');
    expect(e.tools.calls).toContain('change_thing:staging');
    expect(e.tools.calls).not.toContain('change_thing:production');
    const answered = e.fake.model.findMessage('C1', question.ts)!;
    expect(blocksText(answered)).toContain('Answered by <@UREQ>: staging');
    expect(hasButtons(answered)).toBe(false);
  });

  it('takes an answer from the modal that starts with "stop" or "cancel" as the answer: the run goes on with it', async () => {
    const ts = await mention('UREQ', 'ask first then change');
    await e.driver.clickButtonIn(await e.waitForMessage(ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
    const question = await e.waitForMessage(ts, (m) => m.text.includes('Which cluster should I use?'), 'the question');
    const submitted = await submitAnswer(await openAnswer(question, 'UREQ'), 'UREQ', 'stop-gap cluster');
    expect(submitted.body).not.toMatchObject({ response_action: 'errors' });
    const summary = await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(summary.text).toContain('Succeeded');
    expect(e.tools.calls).toContain('change_thing:stop-gap cluster');
    expect(blocksText(e.fake.model.findMessage('C1', question.ts)!)).toContain('Answered by <@UREQ>: stop-gap cluster');
  });

  it('answered by mentioning the bot, the question is marked answered too', async () => {
    const ts = await mention('UREQ', 'ask first then change');
    await e.driver.clickButtonIn(await e.waitForMessage(ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
    const question = await e.waitForMessage(ts, (m) => m.text.includes('Which cluster should I use?'), 'the question');
    await mention('UREQ', 'staging', ts);
    await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    await e.fake.waitUntil(
      () => blocksText(e.fake.model.findMessage('C1', question.ts)!).includes('Answered by <@UREQ>: staging'),
      5000,
      'the question marked',
    );
    expect(hasButtons(e.fake.model.findMessage('C1', question.ts)!)).toBe(false);
  });
});

describe('small talk', () => {
  it.each(['hello', 'thanks!', 'Hi there'])('answers "%s" with a short friendly line: no run, no failure, no setup text', async (words) => {
    const ts = await mention('UREQ', words);
    await e.waitForMessage(ts, () => true, 'the answer');
    await e.agent.idle();
    const thread = e.thread(ts);
    expect(thread).toHaveLength(1);
    expect(thread[0]!.text).toMatch(/^(Hi|You're welcome)/);
    expect(thread[0]!.text).not.toMatch(/Failed|PLANNER_MODEL|OPENAI|set /);
    expect((await db.store.listRuns({ limit: 100 })).filter((run) => run.conversation.threadTs === ts)).toEqual([]);
  });
});

describe('a planning failure', () => {
  it('is said once, in plain words (no model: no summary after it, no variable names)', async () => {
    const ts = await mention('UREQ', 'summarise the open pulls of acme/api');
    await e.waitForMessage(ts, (m) => m.text.includes('I could not plan this'), 'the failure');
    await e.agent.idle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const thread = e.thread(ts);
    expect(thread.map((m) => m.text)).toEqual([expect.stringContaining('nothing ran')]);
    expect(blocksText(thread[0]!)).toContain('set PLANNER_MODEL (for example openai:gpt-4o) and OPENAI_API_KEY (or ANTHROPIC_API_KEY)');
    expect(blocksText(thread[0]!)).not.toMatch(/Failed/);
    const [run] = (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === ts);
    expect(run?.status).toBe('failed'); // the run still ends, as before: only the second message is gone
  });

  it('is said once when the planner is unavailable: the message with Try again, no summary after it', async () => {
    // The planner's one answer names a tool that does not exist; asked to repair it, the model is gone.
    e.planner.answers.push({
      goal: 'Summarise',
      confidence: 0.9,
      steps: [{ id: 's1', title: 'Launch', tool: 'launch_rockets', argsJson: '{}', dependsOn: [], expect: null }],
      rollback: [],
      questions: [],
    });
    const ts = await mention('UREQ', 'summarise the open pulls of acme/api');
    await e.waitForMessage(ts, (m) => hasButtons(m), 'the failure with Try again');
    await e.agent.idle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(e.thread(ts)).toHaveLength(1);
  });
});

describe('refusals in Slack', () => {
  it('name the approvers on a cancel by someone else, and on an escalation answer by a non-approver', async () => {
    e.tools.changeFailures = 1;
    const ts = await mention('UREQ', 'flaky change please');
    await e.driver.clickButtonIn(await e.waitForMessage(ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
    const escalation = await e.waitForMessage(ts, (m) => m.text.includes('A step failed') && hasButtons(m), 'the escalation');
    await e.driver.clickButtonIn(escalation, ESCALATION_ACTIONS.retry, 'UOUTSIDER');
    await e.fake.waitUntil(() => e.fake.model.ephemeralsFor('UOUTSIDER').length > 0, 5000, 'the refusal');
    expect(e.fake.model.ephemeralsFor('UOUTSIDER')[0]!.text).toContain('Only <@UAPP1>, <@UAPP2> or <!subteam^SOPS> can choose how this run goes on');
    await mention('UOUTSIDER', 'cancel', ts);
    await e.fake.waitUntil(() => e.fake.model.ephemeralsFor('UOUTSIDER').length > 1, 5000, 'the second refusal');
    expect(e.fake.model.ephemeralsFor('UOUTSIDER')[1]!.text).toContain('Only <@UREQ> (who asked) or <@UAPP1>, <@UAPP2> or <!subteam^SOPS> may cancel this run');
    expect(e.tools.calls.filter((call) => call.startsWith('change_thing'))).toHaveLength(1);
  });

  it('name who may, not the setting that says so', async () => {
    const ts = await mention('UREQ', 'safe change please');
    const plan = await e.waitForMessage(ts, isPlan, 'the plan');
    await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UOUTSIDER');
    await e.fake.waitUntil(() => e.fake.model.ephemeralsFor('UOUTSIDER').length > 0, 5000, 'the refusal');
    const refusal = e.fake.model
      .ephemeralsFor('UOUTSIDER')
      .map((m) => m.text)
      .join('\n');
    expect(refusal).toContain('Only <@UAPP1>, <@UAPP2> or <!subteam^SOPS> may approve a plan');
    expect(refusal).not.toMatch(/TANDEM_APPROVERS|the approvers|approver list/);
    expect(e.tools.calls).toEqual([]);
  });
});
