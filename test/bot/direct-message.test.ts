import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { isPlan, isSummary } from '../fakes/thread-messages.ts';

/** A direct message to the bot plans in the DM's thread with the same flow as a mention. */
const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
});
afterEach(() => e.stop());

const dmThread = (ts: string) => e.fake.model.thread('D1', ts).filter((m) => m.ts !== ts);
const waitInDm = async (ts: string, match: (m: FakeMessage) => boolean, what: string) => {
  await e.fake.waitUntil(() => dmThread(ts).some(match), 10_000, what);
  return dmThread(ts).find(match)!;
};

describe('direct messages', () => {
  it('plans in the DM thread, runs after an approver approves there, and ends with the summary there', async () => {
    const sent = e.driver.directMessage({ channel: 'D1', user: 'UREQ', text: 'safe change please' });
    expect((await sent).status).toBe(200);
    const plan = await waitInDm(sent.ts, isPlan, 'the plan in the DM thread');
    expect(plan.threadTs).toBe(sent.ts);

    await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UREQ');
    await e.fake.waitUntil(
      () => e.fake.model.ephemeralsFor('UREQ').some((x) => /Only <@UAPP1>.* may approve/.test(x.text)),
      5000,
      'the refusal naming who may approve: the requester is not an approver',
    );
    await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
    const summary = await waitInDm(sent.ts, isSummary, 'the summary in the DM thread');
    await e.agent.idle();
    expect(summary.text).toContain('Succeeded');
    expect(e.tools.calls).toEqual(['check_thing:alpha', 'change_thing:alpha']);
    expect(e.fake.model.messages.filter((m) => m.channel === 'C1')).toHaveLength(0);
  });

  it('takes "cancel" in the DM thread as a follow-up, and ignores edits and bot messages', async () => {
    const waitInDm2 = async (ts: string, match: (m: FakeMessage) => boolean, what: string) => {
      const thread = () => e.fake.model.thread('D2', ts).filter((m) => m.ts !== ts);
      await e.fake.waitUntil(() => thread().some(match), 10_000, what);
      return thread().find(match)!;
    };
    const sent = e.driver.directMessage({ channel: 'D2', user: 'UREQ', text: 'safe change please' });
    await sent;
    await waitInDm2(sent.ts, isPlan, 'the plan');
    await e.driver.event({
      type: 'message',
      channel_type: 'im',
      subtype: 'message_changed',
      channel: 'D2',
      ts: `${Date.now() / 1000}`,
      message: { text: 'safe change please' },
    });
    await e.driver.event({
      type: 'message',
      channel_type: 'im',
      channel: 'D2',
      user: 'UOTHERBOT',
      bot_id: 'B2',
      text: 'safe change please',
      ts: `${Date.now() / 1000}`,
    });
    const cancel = e.driver.directMessage({ channel: 'D2', user: 'UREQ', text: 'cancel', threadTs: sent.ts });
    expect((await cancel).status).toBe(200);
    const summary = await waitInDm2(sent.ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(summary.text).toContain('Cancelled');
    expect(
      await db.store.listRuns({ limit: 100 }).then((runs) => runs.filter((r) => r.conversation.channel === 'D2' && r.conversation.threadTs !== sent.ts)),
    ).toHaveLength(0);
  });
});
