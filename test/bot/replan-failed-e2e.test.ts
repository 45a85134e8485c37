/**
 * A read step fails, the planner is asked for a new plan and cannot make one: the failed step is still there,
 * so the escalation offers what the contract's escalations offer for a failed step (§5: Retry, Skip, Replan,
 * Abort; Replan only while a new plan can be made), and each button does what it says (decision 052). Before,
 * it offered only "Try again" (which asked the planner once more) and Abort. Real Bolt, agent and store; the
 * fake Web API.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LlmError } from '../../src/agent/model/errors.ts';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { ESCALATION_ACTIONS } from '../../src/bot/views/run/escalation.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, hasButtons, isPlan, isPlanVersion, isSummary } from '../fakes/thread-messages.ts';

const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
});
afterEach(() => e.stop());

const actionIds = (m: FakeMessage) =>
  (m.blocks ?? [])
    .flatMap((b) => ((b as { type?: string }).type === 'actions' ? (b as { elements: { action_id: string }[] }).elements : []))
    .map((x) => x.action_id);
const isReplanFailed = (m: FakeMessage) => m.text.includes('Replanning failed') && hasButtons(m);

/** "safe change": s1 checks alpha (a read), s2 changes it. The check fails once; the replan it asks for fails. */
async function failedReplan(): Promise<{ thread: string; escalation: FakeMessage }> {
  e.tools.checkFailures = 1;
  e.planner.answers.push(new LlmError('unavailable', 'the provider answered 503'));
  const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
  expect((await sent).status).toBe(200);
  await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
  const escalation = await e.waitForMessage(sent.ts, isReplanFailed, 'the failed replan');
  await e.agent.idle();
  return { thread: sent.ts, escalation };
}

describe('a failed replan whose failed step is still there', () => {
  it('offers Retry, Skip and Abort for that step (no Replan: no planner is left), and says which step failed', async () => {
    const { escalation } = await failedReplan();
    expect(actionIds(escalation).filter((id) => id.startsWith('escalation-'))).toEqual([
      ESCALATION_ACTIONS.retry,
      ESCALATION_ACTIONS.skip,
      ESCALATION_ACTIONS.abort,
    ]);
    expect(escalation.text).toContain('Check the thing');
    expect(blocksText(escalation)).toContain('could not check alpha: the service answered 502');
    expect(blocksText(escalation)).not.toContain('Try again');
  });

  it('Retry runs the failed step again, and the rest of the plan after it', async () => {
    const { thread, escalation } = await failedReplan();
    await e.driver.clickButtonIn(escalation, ESCALATION_ACTIONS.retry, 'UAPP1');
    const summary = await e.waitForMessage(thread, isSummary, 'the summary');
    expect(summary.text).toMatch(/^:white_check_mark: /);
    expect(e.tools.calls).toEqual(['check_thing:alpha', 'check_thing:alpha', 'change_thing:alpha']);
    expect(e.planner.requests).toHaveLength(1);
  });

  it('Skip goes on without the step: what depends on it does not run, and the summary says so', async () => {
    const { thread, escalation } = await failedReplan();
    await e.driver.clickButtonIn(escalation, ESCALATION_ACTIONS.skip, 'UAPP1');
    const summary = await e.waitForMessage(thread, isSummary, 'the summary');
    expect(summary.text).not.toMatch(/^:white_check_mark: /);
    expect(blocksText(summary)).toMatch(/skipped/i);
    expect(e.tools.calls).toEqual(['check_thing:alpha']);
  });

  it('Replan, offered while a new plan can be made, asks the planner again and proposes its plan', async () => {
    e.tools.checkFailures = 1;
    e.planner.answers.push(new LlmError('unavailable', 'the provider answered 503'), {
      goal: 'Change alpha without the check',
      confidence: 0.9,
      steps: [{ id: 's3', title: 'Change it anyway', tool: 'change_thing', argsJson: '{"target":"alpha"}', dependsOn: [], expect: null }],
      rollback: [],
      questions: [],
    });
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
    await e.driver.clickButtonIn(await e.waitForMessage(sent.ts, isPlan, 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
    const escalation = await e.waitForMessage(sent.ts, isReplanFailed, 'the failed replan');
    await e.agent.idle();
    expect(actionIds(escalation)).toEqual(expect.arrayContaining([ESCALATION_ACTIONS.retry, ESCALATION_ACTIONS.skip, ESCALATION_ACTIONS.replan]));
    await e.driver.clickButtonIn(escalation, ESCALATION_ACTIONS.replan, 'UAPP1');
    const v2 = await e.waitForMessage(sent.ts, isPlanVersion(2), 'the new plan');
    expect(blocksText(v2)).toContain('Change it anyway');
    expect(e.planner.requests).toHaveLength(2);
    // The new version waits for its own approval: nothing ran after the failed check.
    await e.agent.idle();
    expect(e.tools.calls).toEqual(['check_thing:alpha']);
  });
});
