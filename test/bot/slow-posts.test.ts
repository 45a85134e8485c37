/**
 * A Slack that posts but answers after the client gave up (the client's timeout, shortened here): the
 * post must not be sent again blindly, so each message appears once. Through the real @slack/web-api
 * client, with the bot's own client options, against the fake Web API.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BoardState, RunSummary } from '../../src/agent/ports/surface.ts';
import { createSlackClient, type SlackClient } from '../../src/bot/surface/slack-client.ts';
import { SlackSurface } from '../../src/bot/surface/slack-surface.ts';
import { SlackFakeServer } from '../../src/workspace/slack-fake/index.ts';
import { BOT_TOKEN, silentLogger } from '../fakes/slack-harness.ts';
import { makePlan, makeRun, boardAt as boardOf } from '../fakes/slack-fixtures.ts';

/** The client gives up after this; the fake answers slow posts after SLOW_MS, and stores them only then. */
const TIMEOUT_MS = 300;
const SLOW_MS = 700;

let fake: SlackFakeServer;
let client: SlackClient;
const run = makeRun({ status: 'executing' });
const plan = makePlan(3);

beforeEach(async () => {
  fake = await new SlackFakeServer({ token: BOT_TOKEN }).start();
  const slack = { botToken: BOT_TOKEN, appToken: undefined, signingSecret: 'unused', apiUrl: fake.apiUrl, mode: 'http' as const };
  client = createSlackClient({ slack }, silentLogger(), { timeoutMs: TIMEOUT_MS });
});
afterEach(() => fake.stop());

const newSurface = (options: Partial<ConstructorParameters<typeof SlackSurface>[0]> = {}) =>
  new SlackSurface({
    client,
    logger: silentLogger(),
    escalateTo: undefined,
    boardIntervalMs: 20,
    boardRetryBaseMs: 20,
    postSettle: { settleMs: 2_000, pollMs: 50 },
    ...options,
  });

const thread = () => fake.model.thread('C1', run.conversation.threadTs);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Long enough for a slow post, and a second copy if one was sent, to land. */
const settleDown = () => sleep(SLOW_MS);

const boardAt = (progress: number, runStatus: BoardState['runStatus'] = 'executing') => boardOf(plan, progress, runStatus);

const summary: RunSummary = {
  run,
  outcome: 'succeeded',
  goal: plan.goal,
  reason: null,
  changes: [],
  rolledBack: [],
  durationMs: 1000,
  tokens: { input: 1, output: 2 },
  costUsd: 0,
};

describe('a post Slack answers only after the client gave up', () => {
  it('an ask_human question (owed) appears once, found in the thread instead of sent again', async () => {
    const surface = newSurface();
    fake.slow('chat.postMessage', 1, SLOW_MS);
    await surface.ask(run, 's1', 'Which environment?', { key: `${run.id}/question/s1`, mayExist: false });
    await settleDown();
    expect(thread().filter((m) => m.text.includes('Which environment?'))).toHaveLength(1);
    expect(fake.callsOf('chat.postMessage')).toHaveLength(1);
  });

  it('the summary (owed) appears once, after the final board', async () => {
    const surface = newSurface();
    await surface.reportProgress(run, boardAt(3, 'succeeded'));
    await surface.board.settle(run.id);
    fake.slow('chat.postMessage', 1, SLOW_MS);
    await surface.finish(summary, { key: `${run.id}/run-finished`, mayExist: false });
    await settleDown();
    const texts = thread().map((m) => m.text);
    expect(texts.filter((t) => t.startsWith(':white_check_mark: Succeeded'))).toHaveLength(1);
    expect(texts).toHaveLength(2);
  });

  it('a message nobody owes (a notice) appears once too', async () => {
    const surface = newSurface();
    fake.slow('chat.postMessage', 1, SLOW_MS);
    await surface.notify(run, 'Waiting for CI');
    await settleDown();
    expect(thread().map((m) => m.text)).toEqual(['Waiting for CI']);
  });

  it("the board's first post: one board, edited to the final state", async () => {
    const surface = newSurface();
    fake.slow('chat.postMessage', 1, SLOW_MS);
    await surface.reportProgress(run, boardAt(0));
    await sleep(50);
    await surface.reportProgress(run, boardAt(2));
    await surface.board.settle(run.id);
    await surface.reportProgress(run, boardAt(3, 'succeeded'));
    await surface.board.settle(run.id);
    await settleDown();
    const boards = thread();
    expect(boards).toHaveLength(1);
    expect(JSON.stringify(boards[0]!.blocks)).toContain('3/3 steps done');
    expect(fake.callsOf('chat.postMessage')).toHaveLength(1);
  });

  it('a rate-limited post is still retried by the client (Slack posted nothing), and a slow edit too', async () => {
    const surface = newSurface();
    fake.rateLimit('chat.postMessage', 1, 0);
    await surface.ask(run, 's1', 'Which environment?', { key: `${run.id}/question/s1`, mayExist: false });
    expect(fake.callsOf('chat.postMessage').map((c) => c.status)).toEqual([429, 200]);
    expect(thread()).toHaveLength(1);

    // chat.update sets the same content however often it is sent: the client tries again after a timeout.
    fake.slow('chat.update', 1, SLOW_MS);
    await client.chat.update({ channel: 'C1', ts: thread()[0]!.ts, text: 'edited' });
    expect(fake.callsOf('chat.update').length).toBeGreaterThanOrEqual(1);
    expect(thread()[0]!.text).toBe('edited');
  });
});
