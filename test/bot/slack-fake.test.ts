import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SlackFakeServer } from '../../src/workspace/slack-fake/index.ts';

let fake: SlackFakeServer;
const { WebClient, LogLevel } = webApi;
let client: InstanceType<typeof WebClient>;
/** The client logs every refused call; these tests expect refusals. */
const quiet = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => LogLevel.ERROR, setName() {} };

beforeEach(async () => {
  fake = await new SlackFakeServer({ token: 'xoxb-test' }).start();
  client = new WebClient('xoxb-test', {
    logLevel: LogLevel.ERROR,
    logger: quiet,
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 2, factor: 1, minTimeout: 10, maxTimeout: 20 },
  });
});
afterEach(() => fake.stop());

describe('fake Slack Web API through @slack/web-api', () => {
  it('posts into a thread, updates in place, and keeps both in the workspace model', async () => {
    const posted = await client.chat.postMessage({
      channel: 'C1',
      thread_ts: '1.000001',
      text: 'hello',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }],
    });
    await client.chat.update({ channel: 'C1', ts: posted.ts!, text: 'edited' });
    expect(fake.model.thread('C1', '1.000001')).toMatchObject([{ text: 'edited', edits: 1 }]);
  });

  it('refuses blocks that break Slack limits the way Slack does', async () => {
    const blocks = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    await expect(client.chat.postMessage({ channel: 'C1', text: 'x', blocks })).rejects.toMatchObject({ data: { error: 'invalid_blocks' } });
    const big = Array.from({ length: 10 }, () => ({ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(2000) } }));
    await expect(client.chat.postMessage({ channel: 'C1', text: 'x', blocks: big })).rejects.toMatchObject({ data: { error: 'msg_blocks_too_long' } });
    expect(fake.model.messages).toHaveLength(0);
  });

  it('rejects a wrong token', async () => {
    const other = new WebClient('xoxb-wrong', { slackApiUrl: fake.apiUrl });
    await expect(other.auth.test()).rejects.toMatchObject({ data: { error: 'invalid_auth' } });
  });

  it('answers scripted 429s with Retry-After, which the client waits out and retries', async () => {
    fake.rateLimit('chat.postMessage', 2, 0);
    const posted = await client.chat.postMessage({ channel: 'C1', text: 'after the limit' });
    expect(posted.ok).toBe(true);
    expect(fake.callsOf('chat.postMessage').map((c) => c.status)).toEqual([429, 429, 200]);
  });

  it('finds messages by metadata through conversations.history', async () => {
    await client.chat.postMessage({ channel: 'C2', text: 'note', metadata: { event_type: 'tandem_marker', event_payload: { marker: 'tandem:run_1/s1' } } });
    const history = await client.conversations.history({ channel: 'C2', include_all_metadata: true });
    expect(history.messages?.[0]).toMatchObject({ text: 'note', metadata: { event_payload: { marker: 'tandem:run_1/s1' } } });
  });

  it('opens, updates with hash, and publishes views; an old trigger id is refused', async () => {
    const view = { type: 'modal' as const, callback_id: 'c', title: { type: 'plain_text' as const, text: 'T' }, blocks: [] };
    const opened = await client.views.open({ trigger_id: fake.issueTrigger('U1'), view });
    await expect(client.views.update({ view_id: opened.view!.id!, hash: 'stale', view })).rejects.toMatchObject({ data: { error: 'hash_conflict' } });
    await client.views.update({ view_id: opened.view!.id!, hash: opened.view!.hash!, view });
    await client.views.publish({ user_id: 'U1', view: { type: 'home', blocks: [] } });
    expect(fake.model.homeTabs.get('U1')).toBeDefined();
    const trigger = fake.issueTrigger('U1');
    (fake as unknown as { triggers: Map<string, { at: number }> }).triggers.get(trigger)!.at -= 4000;
    await expect(client.views.open({ trigger_id: trigger, view })).rejects.toMatchObject({ data: { error: 'expired_trigger_id' } });
  });

  it('keeps only the newest calls when told to bound its record, and still finds them', async () => {
    const bounded = await new SlackFakeServer({ token: 'xoxb-test', maxRecordedCalls: 5 }).start();
    try {
      const small = new WebClient('xoxb-test', { slackApiUrl: bounded.apiUrl, retryConfig: { retries: 0 } });
      for (let i = 0; i < 25; i += 1) await small.chat.postMessage({ channel: 'C1', text: `m${i}` });
      expect(bounded.calls.length).toBeGreaterThanOrEqual(5);
      expect(bounded.calls.length).toBeLessThanOrEqual(10);
      expect(bounded.calls.at(-1)!.params.text).toBe('m24');
      await expect(bounded.waitForCall('chat.postMessage', (params) => params.text === 'm24')).resolves.toBeDefined();
    } finally {
      await bounded.stop();
    }
  });
});
