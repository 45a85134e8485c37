/**
 * Only people start runs (issue 28): a message carrying a `bot_id` — another app, a workflow — never
 * starts, answers or cancels a run unless TANDEM_ALLOW_BOTS lists that bot or app; the bot's own never do.
 * A refused app message gets no answer at all (two bots answering each other would loop).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { messageAuthor } from '../../src/bot/surface/bot-identity.ts';
import type { FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { startSlackE2E, type SlackE2E } from '../fakes/slack-e2e.ts';
import { useTestStore } from '../helpers/store.ts';

const OWN = { botId: 'BBOT', botUserId: 'UBOT' };

describe('who a message is from', () => {
  it.each([
    [{ user: 'U1' }, [], { user: 'U1' }],
    [{ user: 'UAPP', bot_id: 'B2' }, [], { ignored: expect.stringContaining('not listed in TANDEM_ALLOW_BOTS') }],
    [{ bot_id: 'B2', subtype: 'bot_message' }, [], { ignored: expect.stringContaining('B2') }],
    [{ subtype: 'bot_message', user: 'U9' }, [], { ignored: expect.stringContaining('another app') }],
    [{ user: 'UAPP', bot_id: 'B2' }, ['B2'], { user: 'UAPP' }],
    [{ bot_id: 'B2', subtype: 'bot_message', bot_profile: { app_id: 'A7' } }, ['A7'], { user: 'B2' }],
    [{ user: 'UAPP', bot_id: 'B2', app_id: 'A7' }, ['A7'], { user: 'UAPP' }],
    [{ user: 'UAPP', bot_id: 'B2', app_id: 'A7' }, ['B3', 'A8'], { ignored: expect.stringContaining('app A7') }],
    [{ user: 'UBOT', bot_id: 'BBOT' }, ['BBOT'], { ignored: 'the bot itself' }],
    [{ user: 'UBOT' }, [], { ignored: 'the bot itself' }],
    [{}, [], { ignored: 'a message without an author' }],
  ])('%j with TANDEM_ALLOW_BOTS=%j → %j', (event, allowBots, expected) => {
    expect(messageAuthor(event, OWN, allowBots)).toEqual(expected);
  });
});

describe('mentions from other apps, end to end', () => {
  const db = useTestStore();
  let e: SlackE2E;
  afterEach(() => e.stop());

  const hasButtons = (m: FakeMessage) => (m.blocks ?? []).some((b) => (b as { type?: string }).type === 'actions');
  const isPlan = (m: FakeMessage) => m.text.startsWith('Plan v1:') && hasButtons(m);
  const appMention = (ts: string, threadTs?: string) => ({
    type: 'app_mention',
    channel: 'C1',
    user: 'UOTHERBOT',
    bot_id: 'B2',
    app_id: 'A2',
    text: '<@UBOT> safe change please',
    ts,
    event_ts: ts,
    ...(threadTs ? { thread_ts: threadTs } : {}),
  });

  it("an app's mention is not planned, answered or taken as a follow-up; a person's next mention is", async () => {
    e = await startSlackE2E(db.store);
    const botTs = '1700000001.000100';
    expect((await e.driver.event(appMention(botTs))).status).toBe(200);
    // A person's run, and the app's "cancel" in that run's thread.
    const sent = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
    await sent;
    await e.waitForMessage(sent.ts, isPlan, 'the person’s plan');
    expect((await e.driver.event({ ...appMention('1700000002.000100', sent.ts), text: '<@UBOT> cancel' })).status).toBe(200);
    const later = e.driver.mention({ channel: 'C1', user: 'UREQ', text: '<@UBOT> safe change please' });
    await later;
    await e.waitForMessage(later.ts, isPlan, 'the next plan');

    const runs = await db.store.listRuns({ limit: 50 });
    expect(runs.map((run) => run.requester).sort()).toEqual(['UREQ', 'UREQ']);
    expect((await db.store.listRuns({ limit: 50 })).find((run) => run.conversation.threadTs === sent.ts)?.status).toBe('awaiting-approval');
    expect(e.thread(botTs)).toEqual([]);
    expect(e.fake.model.ephemeralsFor('UOTHERBOT')).toEqual([]);
  });

  it('a mention from an app TANDEM_ALLOW_BOTS lists is planned, with that app as the requester', async () => {
    e = await startSlackE2E(db.store, { allowBots: ['A2'] });
    const ts = '1700000003.000100';
    expect((await e.driver.event(appMention(ts))).status).toBe(200);
    await e.waitForMessage(ts, isPlan, 'the plan for the listed app');
    const [run] = (await db.store.listRuns({ limit: 50 })).filter((r) => r.conversation.threadTs === ts);
    expect(run?.requester).toBe('UOTHERBOT');
  });
});
