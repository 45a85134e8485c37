/**
 * A failed undo after an Abort (decision 053: a `rollback-failed` escalation) waits for someone to undo it by hand,
 * also once the rollback has ended the run: like every wait for a person (CONTRACT §5) it is re-pinged once after
 * TANDEM_REMIND_AFTER_S, saying that the rest of the rollback went on, and not again; past its time to live it is
 * no longer swept (it expires; expiry runs nothing). Before, the run's end closed it: nobody was reminded.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ESCALATION_ACTIONS } from '../../src/bot/views/run/escalation.ts';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { hasButtons, isPlanVersion, isSummary } from '../fakes/thread-messages.ts';
import { EXPIRED_BY } from '../../src/agent/waits/wait-state.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
});
afterEach(() => e.stop());

const later = (seconds: number) => new Date(Date.now() + seconds * 1000);
const REMINDER = 'Still waiting for someone to undo it by hand; the rest of the rollback goes on.';

/** A change made then failed, aborted by an approver, whose undo fails: the run ends with a failed undo waiting. */
async function abortedWithFailedUndo() {
  e.tools.changeMadeThenFailures = 1;
  e.tools.undoFailures = 1;
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> flaky change please' });
  expect((await sent).status).toBe(200);
  const { ts } = sent;
  await e.driver.clickButtonIn(await e.waitForMessage(ts, isPlanVersion(1), 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
  const escalation = await e.waitForMessage(ts, (m) => m.text.includes('A step failed') && hasButtons(m), 'the escalation');
  await e.driver.clickButtonIn(escalation, ESCALATION_ACTIONS.abort, 'UAPP2');
  await e.waitForMessage(ts, isSummary, 'the summary');
  await e.agent.idle();
  const [run] = (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === ts);
  return { ts, run };
}

describe('a failed undo after the run ended', () => {
  it('is reminded once after TANDEM_REMIND_AFTER_S, and not again after its time to live', async () => {
    const { ts, run } = await abortedWithFailedUndo();
    expect(run?.status).toBe('aborted');
    const failedUndo = e.thread(ts).filter((m) => m.text.includes('An undo step failed'));
    expect(failedUndo).toHaveLength(1);
    const reminders = () => e.thread(ts).filter((m) => JSON.stringify(m.blocks ?? []).includes(REMINDER));

    await e.agent.housekeep(later(600));
    await e.agent.idle();
    expect(reminders()).toHaveLength(0);

    await e.agent.housekeep(later(1801));
    await e.fake.waitUntil(() => reminders().length === 1, 5000, 'the reminder of the failed undo');
    expect(JSON.stringify(reminders()[0]!.blocks)).toContain('<!subteam^SOPS>');

    await e.agent.housekeep(later(3600));
    await e.agent.housekeep(later(86_400 + 60));
    await e.agent.idle();
    expect(reminders()).toHaveLength(1);
    expect(e.tools.calls.filter((call) => call === 'undo_thing:alpha')).toHaveLength(1);
  });

  it('is reminded though many runs were aborted since, and its expiry is stored', async () => {
    const { ts, run } = await abortedWithFailedUndo();
    // Sixty runs aborted after it, in another channel: the sweep used to read only the newest fifty.
    for (let i = 0; i < 60; i += 1) {
      const other = await db.store.createRun({ task: `other ${i}`, requester: 'UREQ', conversation: { channel: 'C9', threadTs: `${i}.1` }, origin: 'mention' });
      await db.store.transitionRun(other.id, ['planning'], 'aborted');
    }
    const reminders = () => e.thread(ts).filter((m) => JSON.stringify(m.blocks ?? []).includes(REMINDER));
    await e.agent.housekeep(later(1801));
    await e.fake.waitUntil(() => reminders().length === 1, 5000, 'the reminder of the failed undo');

    // Past its time to live it expires, and the store says so: it no longer waits for anyone.
    await e.agent.housekeep(later(86_400 + 60));
    await e.agent.idle();
    const failedUndo = (await db.store.listEscalations(run!.id)).find((x) => x.kind === 'rollback-failed');
    expect(failedUndo?.status).toBe('resolved');
    expect(failedUndo?.resolvedBy).toBe(EXPIRED_BY);
    expect(reminders()).toHaveLength(1);
  });
});
