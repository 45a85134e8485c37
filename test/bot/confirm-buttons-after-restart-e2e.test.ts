/**
 * A Confirm (and its reminder's copy) posted by one process, ended by the next: every copy loses Confirm and
 * Abort at the run's end, whichever process ends it. Before, only the process that posted a Confirm knew (in
 * memory) that the run's end must sweep it, so after a restart the copies kept live-looking buttons; now the
 * run's stored summary says a Confirm was asked. Real Bolt, agent and store; the fake Web API, kept across the
 * restart.
 */
import { describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { TARGET_ABORT_ACTION, TARGET_CONFIRM_ACTION } from '../../src/bot/views/run/target-confirmation.ts';
import { SlackFakeServer, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { BOT_TOKEN } from '../fakes/slack-harness.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { hasButtons, isPlanVersion, isSummary } from '../fakes/thread-messages.ts';

const db = useTestStore();
/** The processes still running, stopped before the workspace they share. */
const running: SlackE2E[] = [];

const actionIds = (m: FakeMessage) =>
  (m.blocks ?? [])
    .flatMap((b) => ((b as { type?: string }).type === 'actions' ? (b as { elements: { action_id: string }[] }).elements : []))
    .map((x) => x.action_id);
const isConfirm = (m: FakeMessage) => actionIds(m).includes(TARGET_CONFIRM_ACTION);
const later = (seconds: number) => new Date(Date.now() + seconds * 1000);

describe('a Confirm posted before a restart', () => {
  it('loses its buttons on every copy when the next process ends the run (the Confirm expired)', async () => {
    const fake = await new SlackFakeServer({ token: BOT_TOKEN }).start();
    try {
      const first = await startSlackE2E(db.store, { fake });
      running.push(first);
      const sent = first.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> ask then confirm' });
      expect((await sent).status).toBe(200);
      await first.driver.clickButtonIn(await first.waitForMessage(sent.ts, isPlanVersion(1), 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
      await first.waitForMessage(sent.ts, (m) => m.text.includes('Which cluster should I change?'), 'the question');
      await first.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> prod-eu', threadTs: sent.ts });
      await first.waitForMessage(sent.ts, isConfirm, 'the Confirm');
      await first.agent.housekeep(later(1801));
      await fake.waitUntil(() => first.thread(sent.ts).filter(isConfirm).length === 2, 5000, 'the reminder copy');
      const copies = first.thread(sent.ts).filter(isConfirm);
      await first.agent.idle();
      await running.shift()!.stop();

      // The next process, on the same store and workspace, finds the Confirm unanswered past its TTL.
      const next = await startSlackE2E(db.store, { fake });
      running.push(next);
      await next.agent.housekeep(later(86_400 + 60));
      await next.waitForMessage(sent.ts, isSummary, 'the summary');
      await next.agent.idle();
      const now = (m: FakeMessage) => fake.model.findMessage('C1', m.ts)!;
      await fake.waitUntil(() => copies.every((copy) => !hasButtons(now(copy))), 5000, 'every copy losing its buttons');
      for (const copy of copies) expect(actionIds(now(copy))).not.toEqual(expect.arrayContaining([TARGET_ABORT_ACTION]));
      expect(next.tools.calls).not.toContain('change_thing:prod-eu');
    } finally {
      for (const e of running.splice(0)) await e.stop();
      await fake.stop();
    }
  });
});
