/**
 * Two questions open at once in one thread: the Answer form opened on the second answers the second, in the store and
 * in the thread, and the first keeps waiting with its button (review 19: the form's answer went to the oldest open
 * question while the clicked message was marked answered).
 * A mention, which names no question, answers the oldest, and the thread marks that one (it marked the newest).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { ANSWER_BLOCK, ANSWER_INPUT, QUESTION_ANSWER_ACTION } from '../../src/bot/views/run/question.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { hasButtons, isPlan } from '../fakes/thread-messages.ts';
import { openModal } from '../fakes/modal-steps.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
});
afterEach(() => e.stop());

const ask = (id: string, target: string) => ({
  id,
  title: `Ask which ${target}`,
  tool: 'ask_thing',
  argsJson: JSON.stringify({ target }),
  dependsOn: [],
  expect: null,
});

async function twoQuestionsOpen() {
  e.planner.answers.push({
    goal: 'Change the region named',
    confidence: 0.9,
    steps: [
      ask('s1', 'cluster'),
      ask('s2', 'region'),
      { id: 's3', title: 'Change it', tool: 'change_thing', argsJson: '{"target":"{{steps.s2.output.answer}}"}', dependsOn: ['s2'], expect: null },
    ],
    rollback: [],
    questions: [],
  });
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> two questions then a change' });
  expect((await sent).status).toBe(200);
  await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
  const cluster = await e.waitForMessage(sent.ts, asking('Which cluster should I use?'), 'the first question');
  const region = await e.waitForMessage(sent.ts, asking('Which region should I use?'), 'the second question');
  return { ts: sent.ts, cluster, region };
}

const asking = (words: string) => (m: { text: string; blocks?: unknown[] }) => m.text.includes(words) && hasButtons(m);

describe('the Answer form with two questions open', () => {
  it('answers the question it was opened on; the older one still waits, its button kept', async () => {
    const { ts, region } = await twoQuestionsOpen();
    const sent = { ts };

    const modal = await openModal(e, region, 'UREQ', QUESTION_ANSWER_ACTION);
    await e.driver.submitView({
      user: 'UREQ',
      view: { id: modal.id, callback_id: String(modal.view.callback_id), private_metadata: String(modal.view.private_metadata) },
      values: { [ANSWER_BLOCK]: { [ANSWER_INPUT]: { type: 'plain_text_input', value: 'eu-west' } } },
    });
    // The step that waited on the second question runs with its answer.
    await e.fake.waitUntil(() => e.tools.calls.includes('change_thing:eu-west'), 10_000, 'the answer acted on');
    await e.agent.idle();

    const [run] = (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === sent.ts);
    const stored = await db.store.listQuestions(run!.id);
    // Sorted by step: two questions asked at once have no order of their own.
    expect(stored.map((q) => [q.stepId, q.answer]).sort()).toEqual([
      ['s1', null],
      ['s2', 'eu-west'],
    ]);
    // In the thread: the second says who answered what; the first still offers its Answer button.
    await e.fake.waitUntil(() => !hasButtons(e.thread(sent.ts).find((m) => m.ts === region.ts)!), 5000, 'the second marked answered');
    expect(e.thread(sent.ts).filter(asking('Which cluster should I use?'))).toHaveLength(1);
  });

  it('a mention answers one question, and the thread marks that one, not merely the newest', async () => {
    const { ts, cluster, region } = await twoQuestionsOpen();
    await e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> prod-1', threadTs: ts });
    const [run] = (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === ts);
    // The agent answers the oldest open one; two asked at once may be stored in either order.
    const stored = await vi.waitFor(
      async () => {
        const questions = await db.store.listQuestions(run!.id);
        expect(questions.some((q) => q.answer)).toBe(true);
        return questions;
      },
      { timeout: 5000 },
    );
    const answered = stored.find((q) => q.answer === 'prod-1')!;
    expect(stored.filter((q) => q.answer)).toHaveLength(1);
    const [marked, waiting] = answered.stepId === 's1' ? [cluster, region] : [region, cluster];
    await e.fake.waitUntil(() => !hasButtons(e.thread(ts).find((m) => m.ts === marked.ts)!), 5000, 'the answered question marked');
    await e.agent.idle();
    expect(JSON.stringify(e.thread(ts).find((m) => m.ts === marked.ts)!.blocks)).toContain('prod-1');
    // The other still waits, its Answer button kept.
    expect(hasButtons(e.thread(ts).find((m) => m.ts === waiting.ts)!)).toBe(true);
  });
});
