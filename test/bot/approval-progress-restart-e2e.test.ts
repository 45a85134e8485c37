/**
 * Under a policy file that needs two approvals, the plan message shows how many it has ("1 of 2 approvals"). The
 * click that counted is handled by a process that did not post the plan (the one that did has stopped): the plan
 * message shows the new count all the same. Before, only the posting process could redraw it, so after a restart,
 * or on another replica, it kept "0 of 2". Real Bolt, agent and store; the fake Web API, kept across the restart.
 */
import { describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { SlackFakeServer, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { BOT_TOKEN } from '../fakes/slack-harness.ts';
import { useTestStore } from '../helpers/store.ts';
import { cedarGate } from '../helpers/policy-gate.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { blocksText, isPlan, isSummary } from '../fakes/thread-messages.ts';

const POLICY = `
@id("anyone-requests")
permit (principal, action == Action::"request", resource);

@id("two-leads-approve") @who("two of Lee and Ann") @approvals("2")
permit (principal, action in [Action::"approve", Action::"confirm"], resource is Step)
when { principal == User::"UAPP1" || principal == User::"UAPP2" };
`;

const db = useTestStore();
const running: SlackE2E[] = [];

describe('approval progress on a plan another process posted', () => {
  it('the plan message shows the count after a click the next process handled', async () => {
    const fake = await new SlackFakeServer({ token: BOT_TOKEN }).start();
    const gate = cedarGate(POLICY);
    try {
      const first = await startSlackE2E(db.store, { fake, policy: gate });
      running.push(first);
      const sent = first.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
      expect((await sent).status).toBe(200);
      const plan = await first.waitForMessage(sent.ts, isPlan, 'the plan');
      expect(blocksText(plan)).toContain('(0 of 2 approvals)');
      await first.agent.idle();
      await running.shift()!.stop();

      const next = await startSlackE2E(db.store, { fake, policy: gate });
      running.push(next);
      const now = (m: FakeMessage) => fake.model.findMessage('C1', m.ts)!;
      await next.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
      await fake.waitUntil(() => blocksText(now(plan)).includes('(1 of 2 approvals)'), 5000, 'the plan showing 1 of 2');
      expect(blocksText(now(plan))).not.toContain('(0 of 2 approvals)');
      // The second approval runs it: the count was a redraw of the same message, whose buttons still worked.
      await next.driver.clickButtonIn(now(plan), PLAN_APPROVE_ACTION, 'UAPP2');
      await next.waitForMessage(sent.ts, isSummary, 'the summary');
      await next.agent.idle();
      expect(next.tools.calls).toContain('change_thing:alpha');
    } finally {
      for (const e of running.splice(0)) await e.stop();
      await fake.stop();
    }
  });
});
