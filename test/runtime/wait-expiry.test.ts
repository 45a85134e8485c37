/**
 * A plan nobody approves, through the real runtime with short settings (CONTRACT §2, §5): it is reminded
 * about once, naming the approvers; it expires and its Approve button goes, nothing having run; and **Propose
 * again** plans the task afresh as a plan to approve anew (only the person who asked may).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { PLANNER_TRY_AGAIN_ACTION } from '../../src/bot/views/run/planner-unavailable.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { DEFAULT_ENGINE, openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startOutageStack, TASK, type OutageStack } from '../infra/outage-stack.ts';

const hasAction = (message: FakeMessage, action: string) => JSON.stringify(message.blocks ?? '').includes(action);

describe('a plan nobody approves', () => {
  let database: TestDatabase | undefined;
  let stack: OutageStack;

  beforeAll(async () => {
    if (DEFAULT_ENGINE === 'postgres') database = await openTestDatabase('postgres');
    stack = await startOutageStack(database ? { DATABASE_URL: database.url! } : 'pglite', { TANDEM_REMIND_AFTER_S: '1', TANDEM_APPROVAL_TTL_S: '4' });
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    await database?.destroy();
  });

  it('is reminded about once, expires without running anything, and can be proposed again by the requester', async () => {
    const sent = stack.driver.mention({ channel: 'C1', user: 'U1', text: TASK });
    expect((await sent).status).toBe(200);
    await stack.slack.waitUntil(() => stack.planIn(sent.ts) !== undefined, 20_000, 'the plan');
    const firstPlan = stack.planIn(sent.ts)!;

    const reminders = () => stack.thread(sent.ts).filter((m) => m.text.includes('still waiting for an approver'));
    await stack.slack.waitUntil(() => reminders().length > 0, 10_000, 'the reminder');
    expect(reminders()[0]!.text).toContain('<@U2>');

    const expired = () => stack.thread(sent.ts).find((m) => hasAction(m, PLANNER_TRY_AGAIN_ACTION));
    await stack.slack.waitUntil(() => expired() !== undefined, 15_000, 'the expiry with Propose again');
    expect(JSON.stringify(expired()!.blocks)).toContain('Propose again');
    expect(JSON.stringify(expired()!.blocks)).toMatch(/expired/);
    expect(reminders()).toHaveLength(1);

    // Its buttons are gone: the plan can no longer be approved, and nothing ran.
    const planNow = stack.slack.model.findMessage('C1', firstPlan.ts)!;
    expect(hasAction(planNow, PLAN_APPROVE_ACTION)).toBe(false);
    expect(stack.issues()).toBe(0);

    // Only the requester may propose it again; their click plans the task afresh, once.
    await stack.driver.clickButtonIn(expired()!, PLANNER_TRY_AGAIN_ACTION, 'U9');
    await stack.slack.waitUntil(() => stack.slack.model.ephemeralsFor('U9').length > 0, 10_000, 'a private refusal to a bystander');
    await stack.driver.clickButtonIn(expired()!, PLANNER_TRY_AGAIN_ACTION, 'U1');
    await stack.driver.clickButtonIn(expired()!, PLANNER_TRY_AGAIN_ACTION, 'U1');
    const plans = () => stack.thread(sent.ts).filter((m) => hasAction(m, PLAN_APPROVE_ACTION) && m.ts !== firstPlan.ts);
    await stack.slack.waitUntil(() => plans().length > 0, 20_000, 'a fresh plan');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(plans()).toHaveLength(1);
  }, 90_000);
});
