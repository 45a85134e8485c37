/**
 * A question full of quotes is posted and can be answered (review finding 9): its Answer button once
 * carried the question as JSON, which Slack refused past 2,000 characters (invalid_blocks), so the
 * question never appeared and the run waited on a message nobody could see. Once answered, the message
 * still shows the question in full (the button carries a copy cut to fit).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANSWER_BLOCK, ANSWER_INPUT, QUESTION_ANSWER_ACTION } from '../../src/bot/views/run/question.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, hasButtons } from '../fakes/thread-messages.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
});
afterEach(() => e.stop());

describe('a question of 1,610 characters in quotes', () => {
  it('is posted with its Answer button, opens its form, and takes the answer', async () => {
    const question = 'Which one? ' + Array.from({ length: 400 }, (_, i) => `"${i % 10}"`).join(' ') + ' ?';
    e.planner.answers.push({ goal: 'Find out first', confidence: 0.9, steps: [], rollback: [], questions: [question] });
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> label it' });
    expect((await sent).status).toBe(200);
    const asked = await e.waitForMessage(sent.ts, (m) => blocksText(m).includes('Which one?') && hasButtons(m), 'the question');
    expect(e.fake.calls.filter((c) => c.method === 'chat.postMessage' && (c.response as { ok?: boolean }).ok === false)).toEqual([]);

    const opened = e.fake.calls.filter((c) => c.method === 'views.open').length;
    await e.driver.clickButtonIn(asked, QUESTION_ANSWER_ACTION, 'UREQ');
    await e.fake.waitUntil(() => e.fake.calls.filter((c) => c.method === 'views.open').length > opened, 5000, 'the answer form');
    const form = [...e.fake.model.views.values()].at(-1)!;
    expect(JSON.stringify(form.view.blocks)).toContain('Which one? \\"0\\" \\"1\\"');
    await e.driver.submitView({
      user: 'UREQ',
      view: { id: form.id, callback_id: String(form.view.callback_id), private_metadata: String(form.view.private_metadata) },
      values: { [ANSWER_BLOCK]: { [ANSWER_INPUT]: { type: 'plain_text_input', value: 'the seventh' } } },
    });
    await e.fake.waitUntil(() => blocksText(e.fake.model.findMessage('C1', asked.ts)!).includes('Answered by'), 10_000, 'marked answered');
    const marked = e.fake.model.findMessage('C1', asked.ts)!;
    expect(hasButtons(marked)).toBe(false);
    expect(blocksText(marked)).toContain('the seventh');
    // The answered message still shows the whole question, to its last words, not the button's shortened copy.
    expect(blocksText(marked)).toContain('\\"8\\" \\"9\\" ?');
  });
});
