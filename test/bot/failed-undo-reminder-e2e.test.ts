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
import { REASSIGN_ACTION } from '../../src/bot/views/run/reassign.ts';
import { newEphemeral, openModal, submitReassign } from '../fakes/modal-steps.ts';

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

  it('expires as a wait expires: stored as expired, its copies lose Reassign, the thread is told what remains undone, nothing runs', async () => {
    for (const id of ['UAPP1', 'UAPP2']) e.fake.model.users.set(id, { id, name: id, real_name: id });
    const { ts, run } = await abortedWithFailedUndo();
    const failedUndo = () => e.thread(ts).filter((m) => m.text.includes('An undo step failed'));
    // It waits for a person, so it can be handed on (CONTRACT §5); its reminder is a second copy.
    expect(failedUndo()[0]!.blocks?.some((block) => JSON.stringify(block).includes(REASSIGN_ACTION))).toBe(true);
    // Handed on before it expires: its message says whom it waits on.
    await submitReassign(e, await openModal(e, failedUndo()[0]!, 'UAPP1', REASSIGN_ACTION), 'UAPP1', 'UAPP2');
    await e.fake.waitUntil(() => JSON.stringify(failedUndo()[0]!.blocks).includes('Waiting on <@UAPP2>'), 5000, 'the failed undo handed on');
    await e.agent.housekeep(later(1801));
    await e.fake.waitUntil(() => failedUndo().length === 2, 5000, 'the reminder of the failed undo');
    // Someone opens the Reassign form before it expires and sends it after.
    const form = await openModal(e, failedUndo()[0]!, 'UAPP2', REASSIGN_ACTION);

    await e.agent.housekeep(later(86_400 + 60));
    await e.agent.idle();
    const stored = (await db.store.listEscalations(run!.id)).find((x) => x.kind === 'rollback-failed');
    expect(stored).toMatchObject({ status: 'expired', resolution: null });
    await e.fake.waitUntil(() => failedUndo().every((m) => !hasButtons(m)), 5000, 'every copy without its buttons');
    for (const copy of failedUndo()) expect(JSON.stringify(copy.blocks)).toContain('Expired: nobody took this on within 1 day');
    const told = e.thread(ts).filter((m) => m.text.includes('Nobody took on the failed undo'));
    expect(told).toHaveLength(1);
    expect(told[0]!.text).toContain('“Undo the change” within 1 day');
    expect(told[0]!.text).toContain('Unless someone undid it by hand, what “Change the thing” changed is still in place.');

    const before = e.fake.model.ephemeralsFor('UAPP2').length;
    await submitReassign(e, form, 'UAPP2', 'UAPP1');
    expect(await newEphemeral(e, 'UAPP2', before)).toContain('it expired');
    // Expiry runs nothing: the undo was tried once, by the Abort; a later sweep tells nobody again.
    await e.agent.housekeep(later(2 * 86_400));
    await e.agent.idle();
    expect(e.tools.calls.filter((call) => call === 'undo_thing:alpha')).toHaveLength(1);
    expect(e.thread(ts).filter((m) => m.text.includes('Nobody took on the failed undo'))).toHaveLength(1);
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
    expect(failedUndo?.status).toBe('expired');
    expect(reminders()).toHaveLength(1);
  });
});
