/**
 * While the store cannot take a Slack request, the request is refused so Slack sends it again: over
 * HTTP it gets a 5xx (also when the store does not answer at all, before Slack's 3 s run out), and over
 * Socket Mode its envelope is not acknowledged. Once the store is back, Slack's redelivery starts the
 * run, once. Nothing is acknowledged without being stored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryInbox, type SlackInbox } from '../../src/bot/ports.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { useTestStore } from '../helpers/store.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';

/** An inbox whose store can be refused (connection refused) or made to hang (a cut with no reset). */
function breakableInbox(): SlackInbox & { mode: 'up' | 'refused' | 'hanging' | 'slow' } {
  const inner = createMemoryInbox();
  const inbox = {
    mode: 'up' as 'up' | 'refused' | 'hanging' | 'slow',
    leaseMs: inner.leaseMs,
    record(entry: { key: string; body: Record<string, unknown> }) {
      if (inbox.mode === 'refused') return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
      if (inbox.mode === 'hanging') return new Promise<boolean>(() => undefined);
      // Stored, but after Slack's deadline.
      if (inbox.mode === 'slow') return new Promise<boolean>((resolve) => setTimeout(() => resolve(inner.record(entry)), 3_000));
      return inner.record(entry);
    },
    extend: (key: string) => inner.extend(key),
    done: (key: string) => inner.done(key),
    claimUnfinished: () => inner.claimUnfinished(),
    storeFailures: () => inner.storeFailures(),
    reclaim: (keys: readonly string[]) => inner.reclaim(keys),
  };
  return inbox;
}

const db = useTestStore();
const isPlan = (m: FakeMessage) => m.text.startsWith('Plan v1:');
let e: SlackE2E | undefined;
afterEach(() => e?.stop());

describe.each([
  ['HTTP', false],
  ['Socket Mode', true],
] as const)('a Slack request while the store is down (%s)', (_name, socketMode) => {
  it.each(['refused', 'hanging'] as const)(
    'is not acknowledged when the store is %s, and is handled once when Slack sends it again',
    async (mode) => {
      const inbox = breakableInbox();
      e = await startSlackE2E(db.store, { socketMode, inbox });
      inbox.mode = mode;
      const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
      const refused = await sent;
      // HTTP: a server error Slack retries; Socket Mode: no ack (the fake says 0), which Slack redelivers.
      if (socketMode) expect(refused.status).toBe(0);
      else expect(refused.status).toBeGreaterThanOrEqual(500);
      expect(e.thread(sent.ts)).toHaveLength(0);

      inbox.mode = 'up';
      const again = await e.driver.event(
        { type: 'app_mention', user: 'UREQ', text: '<@UBOT> safe change please', ts: sent.ts, channel: 'C1', event_ts: sent.ts },
        { eventId: sent.eventId, retryNum: 1 },
      );
      expect(again.status).toBe(200);
      await e.waitForMessage(sent.ts, isPlan, 'the plan');
      await e.agent.idle();
      expect(e.thread(sent.ts).filter(isPlan)).toHaveLength(1);
      expect((await db.store.listRuns({ limit: 100 })).filter((run) => run.conversation.threadTs === sent.ts)).toHaveLength(1);
    },
    30_000,
  );
});

describe('a Slack request whose inbox write lands after the deadline', () => {
  it('is refused, and handled once when Slack sends it again to this process', async () => {
    const inbox = breakableInbox();
    e = await startSlackE2E(db.store, { inbox });
    inbox.mode = 'slow';
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
    expect((await sent).status).toBeGreaterThanOrEqual(500);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // the write lands meanwhile
    inbox.mode = 'up';
    const again = await e.driver.event(
      { type: 'app_mention', user: 'UREQ', text: '<@UBOT> safe change please', ts: sent.ts, channel: 'C1', event_ts: sent.ts },
      { eventId: sent.eventId, retryNum: 1 },
    );
    expect(again.status).toBe(200);
    await e.waitForMessage(sent.ts, isPlan, 'the plan');
    await e.agent.idle();
    expect(e.thread(sent.ts).filter(isPlan)).toHaveLength(1);
  }, 30_000);
});
