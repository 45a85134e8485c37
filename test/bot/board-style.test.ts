import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webApi } from '@slack/bolt';
import type { StepStatus } from '../../src/agent/ports/run-store.ts';
import type { BoardState } from '../../src/agent/ports/surface.ts';
import type { BoardStyle } from '../../src/bot/surface/board-publisher.ts';
import { SlackSurface } from '../../src/bot/surface/slack-surface.ts';
import { LIMITS } from '../../src/bot/views/limits.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { SlackFakeServer, type RecordedCall } from '../../src/workspace/slack-fake/index.ts';
import { BOT_TOKEN } from '../fakes/slack-harness.ts';
import { makeBoard, makePlan, makeRun } from '../fakes/slack-fixtures.ts';

let fake: SlackFakeServer;
let client: InstanceType<typeof webApi.WebClient>;
beforeEach(async () => {
  fake = await new SlackFakeServer({ token: BOT_TOKEN }).start();
  client = new webApi.WebClient(BOT_TOKEN, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 1, factor: 1, minTimeout: 10, maxTimeout: 10 },
    logLevel: webApi.LogLevel.ERROR,
  });
});
afterEach(() => fake.stop());

const plan = makePlan(3);
function boardAt(runId: string, progress: number, runStatus: BoardState['runStatus'] = 'executing'): BoardState {
  const board = makeBoard(plan, { runId, runStatus });
  board.steps = board.steps.map((step, index) => ({
    ...step,
    status: (index < progress ? 'succeeded' : index === progress ? 'running' : 'pending') as StepStatus,
  }));
  return board;
}

function surfaceWith(style: BoardStyle | undefined) {
  const lines: string[] = [];
  const destination = new Writable({ write: (chunk, _encoding, done) => void (lines.push(String(chunk)), done()) });
  const logger = createLogger({ level: 'info', secrets: [], destination: destination as unknown as Parameters<typeof createLogger>[0]['destination'] });
  return { lines, surface: new SlackSurface({ client, logger, escalateTo: undefined, boardIntervalMs: 20, boardRetryBaseMs: 20, boardStyle: style }) };
}

async function runThrough(surface: SlackSurface, runId: string, threadTs: string) {
  const run = makeRun({ id: runId, status: 'executing', conversation: { channel: 'C1', threadTs } });
  for (const progress of [0, 1, 2]) {
    await surface.reportProgress(run, boardAt(runId, progress));
    await surface.board.settle(runId);
  }
  await surface.reportProgress(run, boardAt(runId, 3, 'succeeded'));
  await surface.board.settle(runId);
  return fake.model.thread('C1', threadTs);
}

const blockTypes = (blocks: unknown[] | undefined) => (blocks ?? []).map((b) => (b as { type: string }).type);
const sentPlan = (call: RecordedCall) => (call.params.blocks ?? '').includes('"type":"plan"');
const boardCalls = () => [...fake.callsOf('chat.postMessage'), ...fake.callsOf('chat.update')];

describe('status board style', () => {
  it('auto: draws the board as a plan block where Slack takes it, edited in place to the final state', async () => {
    const { surface } = surfaceWith(undefined);
    const thread = await runThrough(surface, 'run_a', '1.000001');
    expect(thread).toHaveLength(1);
    expect(blockTypes(thread[0]!.blocks)).toEqual(['plan', 'context']);
    expect(thread[0]!.text).toBe('Succeeded: Merge PR 42 on acme/api &lt;safely&gt; &amp; quickly (3/3 steps done)');
    expect(JSON.stringify(thread[0]!.blocks)).toContain('"status":"complete"');
  });

  it('auto: where Slack refuses plan blocks, the same update goes out as sections, the refusal is logged once and remembered, nothing shows in the thread', async () => {
    fake.model.refusedBlockTypes.add('plan');
    const { surface, lines } = surfaceWith('auto');
    const first = await runThrough(surface, 'run_b', '1.000002');
    expect(first).toHaveLength(1);
    expect(blockTypes(first[0]!.blocks)[0]).toBe('header');
    expect(first[0]!.text).toMatch(/^Succeeded: .*\(3\/3 steps done\)$/);
    expect(JSON.stringify(first[0]!.blocks)).toContain(':white_check_mark: 3. Check CI run 3 · done');
    const refusedCalls = boardCalls().filter((call) => call.response?.ok === false);
    expect(refusedCalls).toHaveLength(1);

    const second = await runThrough(surface, 'run_c', '1.000003');
    expect(blockTypes(second[0]!.blocks)[0]).toBe('header');
    expect(boardCalls().filter(sentPlan)).toHaveLength(1); // never tried again
    expect(lines.filter((line) => line.includes('Slack refused the plan block'))).toHaveLength(1);
    expect(fake.model.ephemerals).toHaveLength(0);
  });

  it('sections: never sends a plan block; plan: tries the plan block for every state, falling back each time', async () => {
    const sections = surfaceWith('sections');
    await runThrough(sections.surface, 'run_d', '1.000004');
    expect(boardCalls().filter(sentPlan)).toHaveLength(0);

    fake.model.refusedBlockTypes.add('plan');
    const forced = surfaceWith('plan');
    const thread = await runThrough(forced.surface, 'run_e', '1.000005');
    expect(thread[0]!.text).toMatch(/^Succeeded: /);
    expect(boardCalls().filter(sentPlan).length).toBe(4);
  });

  it('keeps the final state exact when the plan-block edit is rate limited beyond the client retries', async () => {
    const { surface } = surfaceWith('auto');
    const run = makeRun({ id: 'run_f', status: 'executing', conversation: { channel: 'C1', threadTs: '1.000006' } });
    await surface.reportProgress(run, boardAt('run_f', 0));
    await surface.board.settle('run_f');
    fake.rateLimit('chat.update', 4, 0);
    await surface.reportProgress(run, boardAt('run_f', 1));
    await surface.reportProgress(run, boardAt('run_f', 3, 'failed'));
    await surface.board.settle('run_f');
    const [board] = fake.model.thread('C1', '1.000006');
    expect(board!.text).toMatch(/^Failed: /);
    expect(blockTypes(board!.blocks)).toEqual(['plan', 'context']);
  });

  it('draws a board of more than 50 steps with sections in its one message, without logging or remembering it (decision 018)', async () => {
    const { surface, lines } = surfaceWith('auto');
    const long = makeBoard(makePlan(LIMITS.planTasks + 1), { runId: 'run_g', runStatus: 'executing' });
    const run = makeRun({ id: 'run_g', status: 'executing', conversation: { channel: 'C1', threadTs: '1.000007' } });
    await surface.reportProgress(run, long);
    await surface.board.settle('run_g');
    await surface.reportProgress(run, { ...long, runStatus: 'succeeded', steps: long.steps.map((step) => ({ ...step, status: 'succeeded' as StepStatus })) });
    await surface.board.settle('run_g');
    const thread = fake.model.thread('C1', '1.000007');
    expect(thread).toHaveLength(1);
    expect(blockTypes(thread[0]!.blocks)[0]).toBe('header');
    expect(thread[0]!.text).toMatch(/^Succeeded: .*\(51\/51 steps done\)$/);
    expect(boardCalls().filter(sentPlan)).toHaveLength(0);
    expect(lines.filter((line) => line.includes('plan block'))).toHaveLength(0);

    const next = await runThrough(surface, 'run_h', '1.000008');
    expect(blockTypes(next[0]!.blocks)).toEqual(['plan', 'context']);
  });
});
