/**
 * The status board while Slack's Web API hangs (no answer at all, for far longer than the client waits):
 * the board keeps its newest state and sends it once Slack answers, however many sends timed out
 * meanwhile; and a run's ending sends a state that was waiting out its backoff at once, so the final
 * board does not lag behind the summary. Real @slack/web-api client with the bot's options (timeout
 * shortened, no client retries) against the fake Web API.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BoardState } from '../../src/agent/ports/surface.ts';
import { createSlackClient, type SlackClient } from '../../src/bot/surface/slack-client.ts';
import { SlackSurface } from '../../src/bot/surface/slack-surface.ts';
import { SlackFakeServer } from '../../src/workspace/slack-fake/index.ts';
import { BOT_TOKEN, silentLogger } from '../fakes/slack-harness.ts';
import { boardAt as boardOf, makePlan, makeRun } from '../fakes/slack-fixtures.ts';

let fake: SlackFakeServer;
let client: SlackClient;
const run = makeRun({ status: 'executing' });
const plan = makePlan(4);
const boardAt = (progress: number, runStatus: BoardState['runStatus'] = 'executing') => boardOf(plan, progress, runStatus);
const boardText = () => fake.model.thread('C1', run.conversation.threadTs).map((m) => m.text);

/** The bot's client against the fake, with its timeout shortened to `timeoutMs` and no retries of its own. */
const clientTimingOutAfter = (timeoutMs: number) =>
  createSlackClient(
    { slack: { botToken: BOT_TOKEN, appToken: undefined, signingSecret: 'unused', apiUrl: fake.apiUrl, mode: 'http' as const } },
    silentLogger(),
    { timeoutMs, retries: 0 },
  );

beforeEach(async () => {
  fake = await new SlackFakeServer({ token: BOT_TOKEN }).start();
  client = clientTimingOutAfter(50);
});
afterEach(async () => {
  fake.release();
  await fake.stop();
});

async function untilSends(surface: SlackSurface, sends: number): Promise<void> {
  for (let tries = 0; surface.board.stats.sends < sends; tries++) {
    if (tries > 400) throw new Error(`only ${surface.board.stats.sends} sends`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the board while Slack hangs', () => {
  it('keeps sending its newest state through any number of timeouts and ends right once Slack answers', async () => {
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined, boardIntervalMs: 5, boardRetryBaseMs: 5 });
    await surface.reportProgress(run, boardAt(0));
    await surface.board.settle(run.id);
    fake.hang({ effect: 'never' });
    await surface.reportProgress(run, boardAt(4, 'succeeded'));
    await untilSends(surface, 1 + 12); // more failed sends than an error Slack answered with is tried
    fake.release();
    await surface.board.settle(run.id);
    expect(boardText()).toEqual([expect.stringMatching(/^Succeeded:/)]);
  });

  it('sends a state waiting out its backoff as soon as the run ends, so the summary follows the final board', async () => {
    // A backoff far longer than the ending waits for the board (2 s below). The client waits 1 s, not 50 ms: on a
    // loaded machine the first board's send, before the hang, could time out too and wait out the minute's backoff.
    const surface = new SlackSurface({
      client: clientTimingOutAfter(1_000),
      logger: silentLogger(),
      escalateTo: undefined,
      boardIntervalMs: 5,
      boardRetryBaseMs: 60_000,
    });
    await surface.reportProgress(run, boardAt(0));
    await surface.board.settle(run.id);
    fake.hang({ effect: 'never' });
    await surface.reportProgress(run, boardAt(4, 'succeeded'));
    await untilSends(surface, 2); // the final state's send failed; the next waits a minute
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // its answer (a timeout, after the client's 1 s) came back
    fake.release();
    await surface.board.finish(run.id, 2_000);
    expect(boardText()).toEqual([expect.stringMatching(/^Succeeded:/)]);
  });
});
