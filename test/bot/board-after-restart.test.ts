/**
 * A process dies the moment Slack stored its run's first board post, before the board's ts reached the
 * store. The next process (a new surface over the same store) must find that board and edit it, not post
 * a second one. Real @slack/web-api client against the fake Web API.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BoardState } from '../../src/agent/ports/surface.ts';
import { createSlackClient, type SlackClient } from '../../src/bot/surface/slack-client.ts';
import { SlackSurface } from '../../src/bot/surface/slack-surface.ts';
import { SlackFakeServer } from '../../src/workspace/slack-fake/index.ts';
import { BOT_TOKEN, silentLogger } from '../fakes/slack-harness.ts';
import { makePlan, makeRun, boardAt as boardOf } from '../fakes/slack-fixtures.ts';

let fake: SlackFakeServer;
let client: SlackClient;
const plan = makePlan(3);

beforeEach(async () => {
  fake = await new SlackFakeServer({ token: BOT_TOKEN }).start();
  const slack = { botToken: BOT_TOKEN, appToken: undefined, signingSecret: 'unused', apiUrl: fake.apiUrl, mode: 'http' as const };
  client = createSlackClient({ slack }, silentLogger(), { timeoutMs: 2_000 });
});
afterEach(() => fake.stop());

const boardAt = (progress: number, runStatus: BoardState['runStatus'] = 'executing') => boardOf(plan, progress, runStatus);

/** What the store keeps of each run's board (`boardRef`). */
type BoardRefs = Map<string, string>;
const surfaceOver = (refs: BoardRefs, alive: () => boolean = () => true) =>
  new SlackSurface({
    client,
    logger: silentLogger(),
    escalateTo: undefined,
    boardIntervalMs: 20,
    boardRetryBaseMs: 20,
    onBoardPosted: async (runId, ts) => {
      if (alive()) refs.set(runId, ts);
    },
  });

describe('a board whose first post reached Slack as its process died', () => {
  it('is found and edited by the next process: one board, in its final state', async () => {
    const refs: BoardRefs = new Map();
    const run = makeRun({ status: 'executing' });
    // The first process dies the moment Slack has stored its board: it never hears back, so nothing reaches the store.
    let died = false;
    const stop = fake.onCall((call) => {
      if (call.method !== 'chat.postMessage') return;
      died = true;
      stop();
    });
    const first = surfaceOver(refs, () => !died);
    await first.reportProgress(run, boardAt(0));
    await fake.waitForCall('chat.postMessage');
    expect(refs.has(run.id)).toBe(false);

    const second = surfaceOver(refs);
    const resumed = { ...run, boardRef: refs.get(run.id) ?? null };
    await second.reportProgress(resumed, boardAt(1));
    await second.reportProgress(resumed, boardAt(3, 'succeeded'));
    await second.board.settle(run.id);

    const boards = fake.model.thread('C1', run.conversation.threadTs);
    expect(boards).toHaveLength(1);
    expect(JSON.stringify(boards[0]!.blocks)).toContain('3/3 steps done');
    expect(fake.callsOf('chat.postMessage')).toHaveLength(1);
    // The store learns the board after all, so later processes edit it without looking.
    expect(refs.get(run.id)).toBe(boards[0]!.ts);
  });

  it("another run's board in the same thread is not taken for this run's", async () => {
    const refs: BoardRefs = new Map();
    const earlier = makeRun({ id: 'run_0', status: 'succeeded' });
    const run = makeRun({ status: 'executing' });
    const surface = surfaceOver(refs);
    await surface.reportProgress(earlier, { ...boardAt(3, 'succeeded'), runId: earlier.id });
    await surface.board.settle(earlier.id);
    await surface.reportProgress(run, boardAt(0));
    await surface.board.settle(run.id);
    const boards = fake.model.thread('C1', run.conversation.threadTs);
    expect(boards).toHaveLength(2);
    expect(refs.get(run.id)).not.toBe(refs.get(earlier.id));
  });
});
