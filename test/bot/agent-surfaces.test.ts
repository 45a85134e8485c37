import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { isPlan, isSummary } from '../fakes/thread-messages.ts';

/** Slack's agent surfaces on the whole product path: the thread status, the agent session, its Stop. */
const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store);
});
afterEach(() => e.stop());

async function mention(task: string, user = 'UREQ') {
  const sent = e.driver.mention({ channel: 'C1', user, text: `<@UBOT> ${task}` });
  expect((await sent).status).toBe(200);
  return sent.ts;
}

const stop = (ts: string, user: string, eventId?: string) =>
  e.driver.event(
    { type: 'agent_session_stopped', channel: 'C1', user, thread_ts: ts, streaming_message_ts: [], event_ts: `${Date.now() / 1000}` },
    { eventId },
  );

describe('status while the bot works', () => {
  it('shows Slack\'s "is planning…" thread status instead of a message where Slack takes it; it clears with the plan', async () => {
    e.fake.model.agentFeatures.threadStatus = true;
    const ts = await mention('safe change please');
    await e.waitForMessage(ts, isPlan, 'the plan');
    expect(e.fake.model.threadStatusLog).toEqual([{ channel: 'C1', threadTs: ts, status: 'is planning…' }]);
    expect(
      e
        .thread(ts)
        .map((m) => m.text)
        .some((text) => /planning/i.test(text)),
    ).toBe(false);
    expect(e.thread(ts)).toHaveLength(1);
    expect(e.fake.model.threadStatus.has(`C1:${ts}`)).toBe(false);
  });

  it('where Slack refuses the thread status, says "Planning…" in a message, and stops asking after the first refusal', async () => {
    const first = await mention('safe change please');
    await e.waitForMessage(first, isPlan, 'the plan');
    const second = await mention('safe change please');
    await e.waitForMessage(second, isPlan, 'the second plan');
    expect(e.fake.callsOf('assistant.threads.setStatus')).toHaveLength(1);
    const planningEdits = e.fake.callsOf('chat.postMessage').filter((call) => call.params.text?.includes('Planning…'));
    expect(planningEdits).toHaveLength(2);
    expect(e.thread(second)).toHaveLength(1); // replaced by the plan
  });

  it('moves the agent session along the run: processing, suspended while waiting for approval, processing, closed', async () => {
    e.fake.model.agentFeatures.sessions = true;
    const ts = await mention('safe change please');
    const plan = await e.waitForMessage(ts, isPlan, 'the plan');
    await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
    await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    const statuses = e.fake.model.sessionLog.filter((s) => s.threadTs === ts).map((s) => s.status);
    expect(statuses).toEqual(['processing', 'suspended', 'processing', 'closed']);
  });
});

describe("Slack's Stop", () => {
  it('cancels the run like "cancel" in the thread, once under redelivery, and changes nothing for an ended run', async () => {
    e.fake.model.agentFeatures.sessions = true;
    const ts = await mention('ask first then change');
    const plan = await e.waitForMessage(ts, isPlan, 'the plan');
    await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
    await e.waitForMessage(ts, (m) => m.text.includes('Which cluster should I use?'), 'the question');

    const outsider = await stop(ts, 'UOUTSIDER');
    expect(outsider.status).toBe(200);
    await e.fake.waitUntil(() => e.fake.model.ephemeralsFor('UOUTSIDER').some((x) => x.text.includes('may cancel')), 5000, 'the refusal');

    const first = stop(ts, 'UREQ');
    expect((await first).status).toBe(200);
    const again = await stop(ts, 'UREQ', first.eventId);
    expect(again.status).toBe(200);
    const summary = await e.waitForMessage(ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(summary.text).toContain('Cancelled');
    const run = (await db.store.listRuns({ limit: 50 })).find((r) => r.conversation.threadTs === ts)!;
    expect(run.status).toBe('cancelled');
    const boards = e.thread(ts).filter((m) => /^(Running|Paused|Cancelled)/.test(m.text));
    expect(boards.map((m) => m.text)).toEqual([expect.stringMatching(/^Cancelled: /)]);
    expect(e.tools.calls).not.toContain('change_thing:staging');
    const lastSession = () => e.fake.model.sessionLog.filter((s) => s.threadTs === ts).at(-1)?.status;
    await e.fake.waitUntil(() => lastSession() === 'closed', 5000, 'the agent session to close');

    const messages = e.thread(ts).length;
    const late = await stop(ts, 'UREQ');
    expect(late.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(e.thread(ts)).toHaveLength(messages);
    expect(e.fake.model.ephemeralsFor('UREQ')).toHaveLength(0);
    expect((await db.store.getRun(run.id))!.status).toBe('cancelled');
  });

  it('a Stop for a thread no run knows, or without its thread, changes nothing and says nothing', async () => {
    const runsBefore = (await db.store.listRuns({ limit: 50 })).length;
    const someone = e.fake.model.addUserMessage({ channel: 'C1', user: 'UREQ', text: 'just talking' });
    expect((await stop(someone.ts, 'UREQ')).status).toBe(200);
    const malformed = await e.driver.event({ type: 'agent_session_stopped', channel: 'C1', user: 'UREQ', event_ts: `${Date.now() / 1000}` });
    expect(malformed.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await e.agent.idle();
    expect(e.thread(someone.ts)).toHaveLength(0); // no reply under the message
    expect(e.fake.model.ephemerals).toHaveLength(0);
    expect(await db.store.listRuns({ limit: 50 })).toHaveLength(runsBefore);
  });
});
