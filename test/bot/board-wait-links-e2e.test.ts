/**
 * The board shows each step waiting for a person with a link to the message it waits on (issue 31: "the
 * board shows each waiting step as waiting for a person, with a link to its message"): a failed step's
 * escalation, an ask step's question. Once answered, the link goes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { ESCALATION_ACTIONS } from '../../src/bot/views/run/escalation.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { hasButtons, isPlan, isSummary } from '../fakes/thread-messages.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
});
afterEach(() => e.stop());

/** The run's board: the one message carrying a plan block or the step lines. */
const boardOf = (ts: string) =>
  e.thread(ts).find((m) => (m.blocks ?? []).some((b) => (b as { type?: string }).type === 'plan') || /^(Running|Paused|Waiting)/.test(m.text));
const linkTo = (message: FakeMessage) => `/archives/C1/p${message.ts.replace('.', '')}`;
const boardText = (ts: string) => JSON.stringify(boardOf(ts)?.blocks ?? []);

async function started(task: string): Promise<string> {
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: `<@UBOT> ${task}` });
  expect((await sent).status).toBe(200);
  await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
  return sent.ts;
}

describe('the board links each waiting step to its message', () => {
  it("a failed step's card links to its escalation until someone answers it", async () => {
    e.tools.changeFailures = 1;
    const ts = await started('flaky change please');
    const escalation = await e.waitForMessage(ts, (m) => m.text.includes('A step failed') && hasButtons(m), 'the escalation');
    await e.fake.waitUntil(() => boardText(ts).includes(linkTo(escalation)), 5000, 'the board linking the escalation');
    expect(boardText(ts)).toContain('the message waiting for you');

    await e.driver.clickButtonIn(escalation, ESCALATION_ACTIONS.retry, 'UAPP1');
    await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    await e.fake.waitUntil(() => !boardText(ts).includes(linkTo(escalation)), 5000, 'the link gone once answered');
  });

  it("an ask step's card links to its question", async () => {
    const ts = await started('ask first then change');
    const question = await e.waitForMessage(ts, (m) => m.text.includes('Which cluster should I use?') && hasButtons(m), 'the question');
    await e.fake.waitUntil(() => boardText(ts).includes(linkTo(question)), 5000, 'the board linking the question');
  });
});
