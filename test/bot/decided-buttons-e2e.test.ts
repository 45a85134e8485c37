/**
 * Buttons follow what they decide (review finding 12): a decided plan keeps View full plan, so every
 * argument stays reachable during and after the run; a plan approved from a low-confidence escalation
 * loses its Approve, Modify and Reject; a Confirm posted twice (its reminder's copy) loses its buttons on
 * every copy once it is decided or expired. Real Bolt, agent and store; the fake Web API.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FULL_PLAN_ACTION } from '../../src/bot/views/plan/full-plan-modal.ts';
import { PLAN_APPROVE_ACTION, PLAN_MODIFY_ACTION, PLAN_REJECT_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { ESCALATION_ACTIONS } from '../../src/bot/views/run/escalation.ts';
import { TARGET_ABORT_ACTION, TARGET_CONFIRM_ACTION } from '../../src/bot/views/run/target-confirmation.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, hasButtons, isPlanVersion, isSummary } from '../fakes/thread-messages.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
});
afterEach(() => e.stop());

const now = (m: FakeMessage) => e.fake.model.findMessage('C1', m.ts)!;
const actionIds = (m: FakeMessage) =>
  (m.blocks ?? [])
    .flatMap((b) => ((b as { type?: string }).type === 'actions' ? (b as { elements: { action_id: string }[] }).elements : []))
    .map((x) => x.action_id);
const isConfirm = (m: FakeMessage) => actionIds(m).includes(TARGET_CONFIRM_ACTION);
const later = (seconds: number) => new Date(Date.now() + seconds * 1000);

/** View full plan on the message as it is now opens the plan in full. */
async function opensFullPlan(plan: FakeMessage, user: string): Promise<void> {
  const opened = e.fake.callsOf('views.update').length;
  await e.driver.clickButtonIn(now(plan), FULL_PLAN_ACTION, user);
  await e.fake.waitUntil(() => e.fake.callsOf('views.update').length > opened, 5000, 'the full plan');
  expect(JSON.stringify([...e.fake.model.views.values()].at(-1)!.view)).toContain('alpha');
}

describe('buttons after a decision', () => {
  it('an approved plan keeps View full plan through and after the run, and nothing else', async () => {
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
    expect((await sent).status).toBe(200);
    const plan = await e.waitForMessage(sent.ts, isPlanVersion(1), 'the plan');
    await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
    await e.fake.waitUntil(() => blocksText(now(plan)).includes('Approved by <@UAPP1>'), 5000, 'the plan marked approved');
    expect(actionIds(now(plan))).toEqual([FULL_PLAN_ACTION]);
    await e.waitForMessage(sent.ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(actionIds(now(plan))).toEqual([FULL_PLAN_ACTION]);
    await opensFullPlan(plan, 'UOTHER');
  });

  it('a low-confidence plan approved anyway from its escalation loses Approve, Modify and Reject', async () => {
    e.planner.answers.push({
      goal: 'Change alpha, perhaps',
      confidence: 0.2,
      steps: [{ id: 's1', title: 'Change the thing', tool: 'change_thing', argsJson: '{"target":"alpha"}', dependsOn: [], expect: null }],
      rollback: [],
      questions: [],
    });
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> do something vague' });
    expect((await sent).status).toBe(200);
    const plan = await e.waitForMessage(sent.ts, isPlanVersion(1), 'the plan');
    const escalation = await e.waitForMessage(sent.ts, (m) => m.text.includes('not confident') && hasButtons(m), 'the escalation');
    await e.driver.clickButtonIn(escalation, ESCALATION_ACTIONS.approve, 'UAPP1');
    await e.waitForMessage(sent.ts, isSummary, 'the summary');
    await e.agent.idle();
    await e.fake.waitUntil(() => !actionIds(now(plan)).includes(PLAN_APPROVE_ACTION), 5000, 'the plan losing its buttons');
    expect(actionIds(now(plan))).not.toEqual(expect.arrayContaining([PLAN_MODIFY_ACTION]));
    expect(actionIds(now(plan))).not.toEqual(expect.arrayContaining([PLAN_REJECT_ACTION]));
    expect(actionIds(now(plan))).toEqual([FULL_PLAN_ACTION]);
    expect(blocksText(now(plan))).toContain('Approved by <@UAPP1>');
    expect(e.tools.calls).toEqual(['change_thing:alpha']);
  });

  it('a plan nobody approved in time is retired as expired, not rejected, and keeps View full plan', async () => {
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
    expect((await sent).status).toBe(200);
    const plan = await e.waitForMessage(sent.ts, isPlanVersion(1), 'the plan');
    await e.agent.idle();
    await e.agent.housekeep(later(86_400 + 60));
    await e.agent.idle();
    await e.fake.waitUntil(() => !hasButtons(now(plan)), 5000, 'the plan losing its buttons');
    expect(blocksText(now(plan))).toContain('Plan expired.');
    expect(blocksText(now(plan))).not.toContain('Run rejected.');
    expect(actionIds(now(plan))).toEqual([FULL_PLAN_ACTION]);
    expect(e.tools.calls).toEqual([]);
  });

  /** A Confirm posted, then posted again by its reminder: both copies, as they are now. */
  async function confirmTwice(): Promise<{ ts: string; copies: FakeMessage[] }> {
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> ask then confirm' });
    expect((await sent).status).toBe(200);
    await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlanVersion(1), 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
    await e.waitForMessage(sent.ts, (m) => m.text.includes('Which cluster should I change?'), 'the question');
    await e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> prod-eu', threadTs: sent.ts });
    await e.waitForMessage(sent.ts, isConfirm, 'the Confirm');
    await e.agent.housekeep(later(1801));
    await e.fake.waitUntil(() => e.thread(sent.ts).filter(isConfirm).length === 2, 5000, 'the reminder copy');
    return { ts: sent.ts, copies: e.thread(sent.ts).filter(isConfirm) };
  }

  it('a Confirm confirmed on its copy: the first post loses Confirm and Abort too', async () => {
    const { copies } = await confirmTwice();
    await e.driver.clickButtonIn(copies[1]!, TARGET_CONFIRM_ACTION, 'UAPP1');
    await e.fake.waitUntil(() => e.tools.calls.includes('change_thing:prod-eu'), 5000, 'the confirmed change');
    await e.fake.waitUntil(() => copies.every((copy) => !hasButtons(now(copy))), 5000, 'both copies losing their buttons');
    for (const copy of copies) expect(blocksText(now(copy))).toContain('Confirmed by <@UAPP1>');
  });

  it('an expired Confirm: neither copy keeps Confirm or Abort', async () => {
    const { ts, copies } = await confirmTwice();
    await e.agent.housekeep(later(86_400 + 60));
    await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    await e.fake.waitUntil(() => copies.every((copy) => !hasButtons(now(copy))), 5000, 'both copies losing their buttons');
    for (const copy of copies) expect(actionIds(now(copy))).not.toEqual(expect.arrayContaining([TARGET_ABORT_ACTION]));
    expect(e.tools.calls).not.toContain('change_thing:prod-eu');
  });
});
