import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { APP_TOKEN, startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { isPlan, isSummary } from '../fakes/thread-messages.ts';

/**
 * Socket Mode end to end: the real @slack/socket-mode client inside Bolt connects to a fake Socket
 * Mode server that the fake Web API's apps.connections.open points at, and the whole product path
 * (real agent and store) runs over it.
 */
const db = useTestStore();
let e: SlackE2E;
beforeEach(async () => {
  e = await startSlackE2E(db.store, { socketMode: true });
});
afterEach(() => e.stop());

const isBoard = (m: FakeMessage) => /^(Running|Succeeded|Failed):/.test(m.text);

async function runsOf(ts: string) {
  return (await db.store.listRuns({ limit: 100 })).filter((r) => r.conversation.threadTs === ts);
}

describe('Socket Mode end to end', () => {
  it('asks the configured Web API for the socket URL, with the app-level token', () => {
    const opened = e.fake.callsOf('apps.connections.open');
    expect(opened.length).toBeGreaterThanOrEqual(1);
    expect(opened.every((call) => call.response?.ok === true)).toBe(true);
    expect(e.socket!.connections).toHaveLength(1);
    expect(APP_TOKEN.startsWith('xapp-')).toBe(true);
  });

  it('runs mention → plan → Approve → board → summary, every envelope acked within 3 s', async () => {
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
    expect((await sent).status).toBe(200);
    const plan = await e.waitForMessage(sent.ts, isPlan, 'the plan');

    const click = await e.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UAPP1');
    expect(click.status).toBe(200);
    const summary = await e.waitForMessage(sent.ts, isSummary, 'the summary');
    await e.agent.idle();
    expect(summary.text).toContain('Succeeded');
    const boards = e.thread(sent.ts).filter(isBoard);
    expect(boards).toHaveLength(1);
    expect(boards[0]!.text).toMatch(/^Succeeded: Change alpha safely \(2\/2 steps done\)/);
    expect(e.tools.calls).toEqual(['check_thing:alpha', 'change_thing:alpha']);

    const help = await e.driver.command({ user: 'UREQ', channel: 'C1', text: 'help' });
    expect(help.status).toBe(200);
    expect(e.socket!.acks.map((ack) => ack.type)).toEqual(['events_api', 'interactive', 'slash_commands']);
    for (const ack of e.socket!.acks) expect(ack.elapsedMs).toBeLessThan(3000);
  });

  it('starts one run when Slack redelivers the same event in a new envelope', async () => {
    const first = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
    expect((await first).status).toBe(200);
    const again = await e.driver.event(
      { type: 'app_mention', user: 'UREQ', text: '<@UBOT> safe change please', ts: first.ts, channel: 'C1', event_ts: first.ts },
      { eventId: first.eventId, retryNum: 1 },
    );
    expect(again.status).toBe(200);
    await e.waitForMessage(first.ts, isPlan, 'the plan');
    await e.agent.idle();
    expect(await runsOf(first.ts)).toHaveLength(1);
    expect(e.thread(first.ts)).toHaveLength(1);
    expect(new Set(e.socket!.acks.map((ack) => ack.envelopeId)).size).toBe(2);
  });

  it('reconnects after Slack asks it to (disconnect) and after the connection is cut, and keeps taking mentions', async () => {
    // The SDK waits 5 s (its ping timeout) before each reconnect.
    e.socket!.disconnect();
    await e.socket!.waitForConnections(2, 15_000);
    e.socket!.drop();
    await e.socket!.waitForConnections(3, 15_000);
    expect(e.socket!.openConnections).toBe(1);
    expect(e.fake.callsOf('apps.connections.open').length).toBeGreaterThanOrEqual(3);

    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
    expect((await sent).status).toBe(200);
    await e.waitForMessage(sent.ts, isPlan, 'the plan');
    expect(await runsOf(sent.ts)).toHaveLength(1);
  }, 40_000);
});
