/**
 * Ack latency of the Slack app on loopback, and status-board edits per run.
 * Run: npx tsx bench/ack.ts. Prints numbers; not a test (goal: p99 ack < 50 ms).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { StepStatus } from '../src/agent/ports/run-store.ts';
import type { BoardState } from '../src/agent/ports/surface.ts';
import { createSlackApp } from '../src/bot/create-slack-app.ts';
import { createMemoryEventLog } from '../src/bot/ports.ts';
import { SlackSurface } from '../src/bot/slack-surface.ts';
import { PLAN_APPROVE_ACTION } from '../src/bot/views/plan-message.ts';
import { SlackDriver, SlackFakeServer } from '../src/workspace/slack-fake/index.ts';
import { makeBoard, makePlan, makeProposal, makeRun } from '../test/fakes/slack-fixtures.ts';
import { BOT_TOKEN, MemoryRunQueries, RecordingAgent, SIGNING_SECRET, silentLogger } from '../test/fakes/slack-harness.ts';

const CONCURRENCY = 100;

/** The bot runs in its own process, as in production, so the driver's CPU does not count against it. */
if (process.argv[2] === '--serve') {
  const runs = new MemoryRunQueries();
  runs.runs.push(makeRun());
  const slack = createSlackApp({
    config: { slack: { botToken: BOT_TOKEN, appToken: undefined, signingSecret: SIGNING_SECRET, apiUrl: process.argv[3]!, mode: 'http' }, port: 0 },
    agent: new RecordingAgent(),
    events: createMemoryEventLog(),
    runs,
    logger: silentLogger(),
  });
  const { port } = await slack.start(0);
  console.log(`PORT ${port}`);
  process.stdin.on('close', () => void slack.stop().then(() => process.exit(0)));
} else {
  await main();
}

async function startBot(apiUrl: string): Promise<{ eventsUrl: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--serve', apiUrl], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => line.startsWith('PORT ') && resolve(line.slice(5)));
    child.on('exit', (code) => reject(new Error(`bot exited with ${code}`)));
  });
  return { eventsUrl: `http://127.0.0.1:${port}/slack/events`, stop: () => child.kill() };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function timed(send: () => Promise<{ status: number }>): Promise<number> {
  const start = performance.now();
  const response = await send();
  if (response.status !== 200) throw new Error(`unexpected status ${response.status}`);
  return performance.now() - start;
}

function report(name: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  console.log(`${name.padEnd(28)} n=${sorted.length}  p50=${percentile(sorted, 50).toFixed(1)} ms  p99=${percentile(sorted, 99).toFixed(1)} ms  max=${sorted.at(-1)!.toFixed(1)} ms`);
}

async function main(): Promise<void> {
  const fake = await new SlackFakeServer({ token: BOT_TOKEN }).start();
  const bot = await startBot(fake.apiUrl);
  const driver = new SlackDriver({ eventsUrl: bot.eventsUrl, signingSecret: SIGNING_SECRET, fake });
  const client = new (await import('@slack/bolt')).webApi.WebClient(BOT_TOKEN, { slackApiUrl: fake.apiUrl });
  try {
    const surface = new SlackSurface({ client, logger: silentLogger(), escalateTo: undefined });
    await surface.proposePlan(makeProposal(makePlan(5)));
    // A copy: the bot strips the buttons from the real message after the first approval.
    const plan = structuredClone(fake.model.messages.at(-1)!);

    // Warm up the JIT in both processes and the connection pool.
    for (let i = 0; i < 200; i += 1) {
      await driver.mention({ channel: 'C1', user: 'UW', text: '<@UBOT> warm up' });
      await driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'UW');
    }

    for (let round = 1; round <= 3; round += 1) {
      const mentions = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => timed(() => driver.mention({ channel: 'C1', user: `U${i}`, text: `<@UBOT> task ${i}` }))));
      report(`round ${round}: ${CONCURRENCY} mentions`, mentions);
      const clicks = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => timed(() => driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, `U${i}`))));
      report(`round ${round}: ${CONCURRENCY} clicks`, clicks);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await boardEdits(surface, fake);
  } finally {
    bot.stop();
    await fake.stop();
  }
}

/** A 10-step run whose steps change state every 50 ms: how many Slack edits does the board cost? */
async function boardEdits(surface: SlackSurface, fake: SlackFakeServer): Promise<void> {
  const steps = 10;
  const board = makeBoard(makePlan(steps));
  const run = makeRun({ id: 'run_bench', conversation: { channel: 'C2', threadTs: '1.000001' } });
  const sent = () => fake.callsOf('chat.update').length + fake.callsOf('chat.postMessage').length;
  const before = sent();
  let states = 0;
  const emit = async (statuses: StepStatus[], runStatus: BoardState['runStatus'] = 'executing') => {
    states += 1;
    await surface.reportProgress(run, { ...board, runId: run.id, runStatus, steps: board.steps.map((s, i) => ({ ...s, status: statuses[i]!, url: null })) });
  };
  const statuses: StepStatus[] = Array(steps).fill('pending');
  const started = Date.now();
  await emit(statuses);
  for (let i = 0; i < steps; i += 1) {
    statuses[i] = 'running';
    await emit(statuses);
    await new Promise((resolve) => setTimeout(resolve, 50));
    statuses[i] = 'succeeded';
    await emit(statuses);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await emit(statuses, 'succeeded');
  await surface.board.settle(run.id);
  console.log(`board: ${states} state changes over ${Date.now() - started} ms → ${sent() - before} Slack posts/edits (at most one per second per run)`);
}
