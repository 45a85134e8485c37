/**
 * Secrets never reach Slack: an answer to a question that holds a configured secret is stored redacted, and the
 * question's "Answered by" line in the thread shows it redacted too, whether it was typed in the Answer modal or
 * in a mention in the thread.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { ANSWER_BLOCK, ANSWER_INPUT, QUESTION_ANSWER_ACTION } from '../../src/bot/views/run/question.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, isPlan, isSummary } from '../fakes/thread-messages.ts';

/** A configured secret that has no token's shape: only the configured list can redact it. */
const SECRET = 'plain-words-deploy-password-4417';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store, { secrets: [SECRET] });
});
afterEach(() => e.stop());

async function askedQuestion() {
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> ask first then change' });
  expect((await sent).status).toBe(200);
  await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
  const question = await e.waitForMessage(sent.ts, (m) => m.text.includes('Which cluster should I use?'), 'the question');
  return { ts: sent.ts, question };
}

/** What the bot posted in the thread once the run ended (the person's own message aside), every message's text and blocks. */
async function threadAfterRun(ts: string, questionTs: string): Promise<string> {
  await e.waitForMessage(ts, isSummary, 'the summary');
  await e.agent.idle();
  await e.fake.waitUntil(() => blocksText(e.fake.model.findMessage('C1', questionTs)!).includes('Answered by <@UREQ>'), 5000, 'the question marked');
  return e
    .thread(ts)
    .filter((m) => m.user !== 'UREQ')
    .map((m) => `${m.text}\n${blocksText(m)}`)
    .join('\n');
}

describe('a secret typed in an answer', () => {
  it('answered by a mention: the thread shows it redacted, as the store keeps it', async () => {
    const { ts, question } = await askedQuestion();
    expect((await e.driver.mention({ channel: 'C1', user: 'UREQ', text: `<@UBOT> staging ${SECRET}`, threadTs: ts })).status).toBe(200);
    const thread = await threadAfterRun(ts, question.ts);
    expect(blocksText(e.fake.model.findMessage('C1', question.ts)!)).toContain('Answered by <@UREQ>: staging [redacted]');
    expect(thread).not.toContain(SECRET);
    expect((await db.store.listQuestions((await db.store.findRunByConversation({ channel: 'C1', threadTs: ts }))!.id))[0]?.answer).toBe('staging [redacted]');
  });

  it('answered in the Answer modal: the thread shows it redacted', async () => {
    const { ts, question } = await askedQuestion();
    const opened = e.fake.calls.filter((c) => c.method === 'views.open').length;
    await e.driver.clickButtonIn(question, QUESTION_ANSWER_ACTION, 'UREQ');
    await e.fake.waitUntil(() => e.fake.calls.filter((c) => c.method === 'views.open').length > opened, 5000, 'the Answer modal');
    const modal = [...e.fake.model.views.values()].at(-1)!;
    const submitted = await e.driver.submitView({
      user: 'UREQ',
      view: { id: modal.id, callback_id: String(modal.view.callback_id), private_metadata: String(modal.view.private_metadata) },
      values: { [ANSWER_BLOCK]: { [ANSWER_INPUT]: { type: 'plain_text_input', value: `staging ${SECRET}` } } },
    });
    expect(submitted.status).toBe(200);
    const thread = await threadAfterRun(ts, question.ts);
    expect(blocksText(e.fake.model.findMessage('C1', question.ts)!)).toContain('Answered by <@UREQ>: staging [redacted]');
    expect(thread).not.toContain(SECRET);
  });
});
