/**
 * CONTRACT §5 through Slack's wire: a mention in a run's thread "when it says 'cancel'" stops the run, also when
 * it says so politely ("@tandem please cancel", "cancel this run please") while a question waits; an answer that
 * only uses the word in a sentence ("don't cancel, use beta") answers the question. Who may cancel is unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';

const db = useTestStore();
let e: SlackE2E;
beforeAll(async () => {
  e = await startSlackE2E(db.store);
});
afterAll(() => e.stop());

const hasButtons = (m: FakeMessage) => (m.blocks ?? []).some((b) => (b as { type?: string }).type === 'actions');
const isPlan = (m: FakeMessage) => m.text.startsWith('Plan v1:') && hasButtons(m);
const isSummary = (m: FakeMessage) => /^:(white_check_mark|warning|x|octagonal_sign|no_entry_sign|no_good): /.test(m.text);

/** An approved run whose first step asks "Which cluster should I use?"; resolves with its thread once asked. */
async function waitingOnQuestion(): Promise<string> {
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> ask first then change' });
  expect((await sent).status).toBe(200);
  await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
  await e.waitForMessage(sent.ts, (m) => m.text.includes('Which cluster should I use?'), 'the question');
  return sent.ts;
}

describe('"cancel" in a run’s thread, said politely', () => {
  for (const [who, text] of [
    ['the requester', '<@UBOT> please cancel'],
    ['an approver', '<@UBOT> cancel this run please'],
    ['the requester', '@tandem, could you stop it now? thanks'],
  ] as const) {
    it(`${who}: "${text}" stops the run; nothing changes and the summary says cancelled`, async () => {
      const ts = await waitingOnQuestion();
      const callsBefore = e.tools.calls.length;
      await e.driver.mention({ channel: 'C1', user: who === 'an approver' ? 'UAPP2' : 'UREQ', text, threadTs: ts });
      const summary = await e.waitForMessage(ts, isSummary, 'the summary');
      await e.agent.idle();
      expect(summary.text).toContain('Cancelled');
      expect(e.tools.calls.slice(callsBefore).filter((call) => call.startsWith('change_thing'))).toEqual([]);
    });
  }

  it('"don\'t cancel, use beta" answers the question: the run goes on with it', async () => {
    const ts = await waitingOnQuestion();
    await e.driver.mention({ channel: 'C1', user: 'UREQ', text: "<@UBOT> don't cancel, use beta", threadTs: ts });
    const summary = await e.waitForMessage(ts, isSummary, 'the summary');
    expect(summary.text).toContain('Succeeded');
    expect(e.tools.calls).toContain("change_thing:don't cancel, use beta");
  });

  it('from someone who is neither the requester nor an approver: told privately who may, and the run keeps waiting', async () => {
    const ts = await waitingOnQuestion();
    await e.driver.mention({ channel: 'C1', user: 'UOUTSIDER', text: '<@UBOT> please cancel', threadTs: ts });
    await e.fake.waitUntil(() => e.fake.model.ephemeralsFor('UOUTSIDER').length > 0, 5000, 'the refusal');
    await e.agent.idle();
    expect(e.thread(ts).some(isSummary)).toBe(false);
    await e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> please cancel', threadTs: ts });
    expect((await e.waitForMessage(ts, isSummary, 'the summary')).text).toContain('Cancelled');
  });
});
