/**
 * A Confirm nobody answered in time aborts its step while the rest of the run goes on (decision 037). Its messages
 * (the first post and its reminder's copy) lose Confirm and Abort at once and say it expired, though the run still
 * waits on something else. Before, they kept live-looking buttons until the run ended (a click was refused).
 * Real Bolt, agent and store; the fake Web API.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { TARGET_CONFIRM_ACTION } from '../../src/bot/views/run/target-confirmation.ts';
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

const offersConfirm = (m: FakeMessage) => blocksText(m).includes(`"action_id":"${TARGET_CONFIRM_ACTION}"`);
const later = (seconds: number) => new Date(Date.now() + seconds * 1000);

describe('an expired Confirm while the run waits on something else', () => {
  it('every copy loses Confirm and Abort at once and says it expired', async () => {
    const step = (id: string, title: string, tool: string, args: unknown, dependsOn: string[] = []) => ({
      id,
      title,
      tool,
      argsJson: JSON.stringify(args),
      dependsOn,
      expect: null,
    });
    e.planner.answers.push({
      goal: 'Change the cluster named, and check beta',
      confidence: 0.9,
      steps: [
        step('s1', 'Ask which one', 'ask_person', { target: 'cluster' }),
        step('s2', 'Change the thing', 'change_thing', { target: '{{steps.s1.output.answer}}' }, ['s1']),
        step('s3', 'Check beta', 'check_thing', { target: 'beta' }),
      ],
      rollback: [],
      questions: [],
    });
    // The check fails and waits for a person's decision: the run is still paused when the Confirm expires.
    e.tools.checkFailures = 1;
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> change the one I name and check beta' });
    expect((await sent).status).toBe(200);
    const { ts } = sent;
    await e.driver.clickButtonIn(await e.waitForMessage(ts, isPlanVersion(1), 'the plan'), PLAN_APPROVE_ACTION, 'UAPP1');
    await e.waitForMessage(ts, (m) => m.text.includes('A step failed') && hasButtons(m), 'the escalation of the check');
    await e.waitForMessage(ts, (m) => m.text.includes('Which cluster should I change?'), 'the question');
    await e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> prod-eu', threadTs: ts });
    await e.waitForMessage(ts, offersConfirm, 'the Confirm');
    await e.agent.housekeep(later(1801));
    await e.fake.waitUntil(() => e.thread(ts).filter(offersConfirm).length === 2, 5000, 'the reminder copy');
    const copies = e.thread(ts).filter(offersConfirm);
    await e.agent.idle();

    await e.agent.housekeep(later(86_400 + 60));
    await e.agent.idle();
    const now = (m: FakeMessage) => e.fake.model.findMessage('C1', m.ts)!;
    await e.fake.waitUntil(() => copies.every((copy) => !offersConfirm(now(copy))), 5000, 'every copy losing Confirm and Abort');
    for (const copy of copies) expect(blocksText(now(copy))).toContain('Expired: nobody confirmed within 1 day, so this step did not run.');
    // The run still waits for the check's escalation: nothing ended it, and the change never ran.
    expect(e.thread(ts).some(isSummary)).toBe(false);
    expect(e.thread(ts).some((m) => m.text.includes('A step failed') && hasButtons(m))).toBe(true);
    expect(e.tools.calls).not.toContain('change_thing:prod-eu');
  });
});
