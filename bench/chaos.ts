/**
 * Chaos: the real `tandem start` process killed with SIGKILL at the moments where an acknowledged
 * request or an owed message could be lost (right after a mention's 200, right after an Approve's
 * 200, during a board edit, between the last step and the summary, after the summary reached Slack,
 * at a random moment) and restarted at once on the same store. Every run must end in its thread with
 * one plan, one board that says it succeeded and one summary. Prints runs, kills, duplicates, lost,
 * and how long a restarted process took to act on an interrupted run.
 * Run: npx tsx bench/chaos.ts [runs]                        (PGlite, one process)
 *      TEST_DATABASE_URL=postgres://… npx tsx bench/chaos.ts (PostgreSQL, two replicas, one killed at a time;
 *      CHAOS_REPLICAS=1 for one process restarted on the same database)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PLAN_APPROVE_ACTION } from '../src/bot/views/plan-message.ts';
import { SlackDriver, SlackFakeServer, type RecordedCall } from '../src/workspace/slack-fake/index.ts';
import { atMost, printFigures } from './support/figures.ts';
import { freshPostgres } from './support/fresh-postgres.ts';

const RUNS = Number(process.argv[2] ?? 20);
const TOKEN = 'xoxb-chaos';
const SECRET = 'chaos-signing-secret';
const GOAL = 'Let the system settle';
const KILL_POINTS = ['event-ack', 'click-ack', 'board-edit', 'final-board', 'summary', 'random', 'none'] as const;
type KillPoint = (typeof KILL_POINTS)[number];

interface Replica {
  child: ChildProcess;
  driver: SlackDriver;
  runningAt: number;
}

const cwd = mkdtempSync(path.join(tmpdir(), 'tandem-chaos-'));
mkdirSync(path.join(cwd, 'runbooks'));
writeFileSync(
  path.join(cwd, 'runbooks', 'settle.yml'),
  `name: settle\npattern: "let it settle"\nplan:\n  goal: ${GOAL}\n  confidence: 0.9\n  steps:\n    - { id: s1, title: Settle, tool: wait, args: { seconds: 1 } }\n    - { id: s2, title: Settle more, tool: wait, args: { seconds: 1 }, dependsOn: [s1] }\n`,
);
const fake = await new SlackFakeServer({ token: TOKEN }).start();
const postgresDb = await freshPostgres();
const env: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  SLACK_BOT_TOKEN: TOKEN,
  SLACK_SIGNING_SECRET: SECRET,
  SLACK_API_URL: fake.apiUrl,
  PORT: '0',
  LOG_LEVEL: 'info',
  TANDEM_RUNBOOKS_DIR: path.join(cwd, 'runbooks'),
};
if (postgresDb) env.DATABASE_URL = postgresDb.url;
else env.DATA_DIR = path.join(cwd, 'data');
const replicaCount = postgresDb ? Number(process.env.CHAOS_REPLICAS ?? 2) : 1;
const bin = path.resolve(import.meta.dirname, '../bin/tandem.js');

function startReplica(): Promise<Replica> {
  const child = spawn(process.execPath, [bin, 'start'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr!.resume();
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.includes('"Tandem is running"'));
      if (!line || child.listenerCount('exit') > 1) return;
      const port = Number((JSON.parse(line) as { port: number }).port);
      child.once('exit', () => undefined);
      resolve({ child, runningAt: Date.now(), driver: new SlackDriver({ eventsUrl: `http://127.0.0.1:${port}/slack/events`, signingSecret: SECRET, fake }) });
    });
    child.once('exit', (code) => reject(new Error(`tandem exited (${code}) before it was running:\n${out}`)));
  });
}

const replicas: Replica[] = [];
for (let i = 0; i < replicaCount; i++) replicas.push(await startReplica());
let kills = 0;
const resumeMs: number[] = [];
/** From the kill to the interrupted thread's next Slack call: what a person waits, process start included. */
const gapMs: number[] = [];

/** Kills a replica and starts it again at once; records how soon after it was running the thread moved again. */
async function killAndRestart(index: number, threadTs: string): Promise<void> {
  const victim = replicas[index]!;
  victim.child.kill('SIGKILL');
  await new Promise((resolve) =>
    victim.child.exitCode !== null || victim.child.signalCode !== null ? resolve(undefined) : victim.child.once('exit', resolve),
  );
  kills += 1;
  const killedAt = Date.now();
  const fresh = await startReplica();
  replicas[index] = fresh;
  const moved = () => fake.calls.some((call) => call.at > killedAt && touches(call, threadTs));
  void fake.waitUntil(moved, 60_000, 'the interrupted thread to move').then(
    () => {
      const next = fake.calls.find((call) => call.at > killedAt && touches(call, threadTs))!.at;
      gapMs.push(next - killedAt);
      // With a surviving peer the thread may move before the restarted process is even up.
      if (next >= fresh.runningAt) resumeMs.push(next - fresh.runningAt);
    },
    () => undefined,
  );
}

function touches(call: RecordedCall, threadTs: string): boolean {
  if (!call.method.startsWith('chat.')) return false;
  const message = fake.model.findMessage('C1', call.params.ts ?? '');
  return call.params.thread_ts === threadTs || message?.threadTs === threadTs;
}

const bot = (threadTs: string) => fake.model.thread('C1', threadTs).filter((m) => m.user === fake.model.bot.userId);
const planOf = (threadTs: string) => bot(threadTs).find((m) => JSON.stringify(m.blocks ?? '').includes(PLAN_APPROVE_ACTION));

function killOnCall(threadTs: string, matches: (call: RecordedCall) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const stop = fake.onCall((call) => {
      if (!touches(call, threadTs) || !matches(call)) return;
      stop();
      void killAndRestart(Math.floor(Math.random() * replicas.length), threadTs).then(resolve);
    });
  });
}

/** Slack retries a request nobody answered; so does this driver, at whichever process is up by then. */
async function deliver<T>(send: (replica: Replica) => Promise<T>): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await send(replicas[Math.floor(Math.random() * replicas.length)]!);
    } catch (error) {
      if (tries >= 60) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

const threads: { ts: string; point: KillPoint }[] = [];
for (let run = 0; run < RUNS; run++) {
  const point = KILL_POINTS[run % KILL_POINTS.length]!;
  const target = Math.floor(Math.random() * replicas.length);
  const sent = replicas[target]!.driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> let it settle' });
  threads.push({ ts: sent.ts, point });
  const armed =
    point === 'board-edit'
      ? killOnCall(sent.ts, (c) => c.method === 'chat.update' && (c.params.text ?? '').startsWith('Running'))
      : point === 'final-board'
        ? killOnCall(sent.ts, (c) => c.method === 'chat.update' && (c.params.text ?? '').startsWith('Succeeded:'))
        : point === 'summary'
          ? killOnCall(sent.ts, (c) => c.method === 'chat.postMessage' && (c.params.text ?? '').startsWith(':white_check_mark: Done'))
          : undefined;
  const mentionEvent = { type: 'app_mention', user: 'U1', text: '<@UBOT> let it settle', ts: sent.ts, channel: 'C1', event_ts: sent.ts };
  await sent.catch(() => deliver((replica) => replica.driver.event(mentionEvent, { eventId: sent.eventId })));
  if (point === 'event-ack') await killAndRestart(target, sent.ts);
  await fake.waitUntil(() => planOf(sent.ts) !== undefined, 60_000, `the plan of run ${run}`).catch(() => undefined);
  const plan = planOf(sent.ts);
  if (plan) {
    const clicker = Math.floor(Math.random() * replicas.length);
    await replicas[clicker]!.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'U2').catch(() =>
      deliver((replica) => replica.driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'U2')),
    );
    if (point === 'click-ack') await killAndRestart(clicker, sent.ts);
    if (point === 'random') {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 2500));
      await killAndRestart(Math.floor(Math.random() * replicas.length), sent.ts);
    }
  }
  await Promise.race([armed ?? Promise.resolve(), new Promise((resolve) => setTimeout(resolve, 20_000))]);
  const done = () => bot(sent.ts).some((m) => m.text.startsWith(':white_check_mark: Done'));
  await fake.waitUntil(done, 60_000, `run ${run} to end`).catch(() => undefined);
  console.log(`run ${run + 1}/${RUNS}: kill ${point}, ${done() ? 'ended' : 'NOT ended'}`);
}
await new Promise((resolve) => setTimeout(resolve, 3000)); // late duplicates would land now

let duplicates = 0;
let lost = 0;
for (const thread of threads) {
  const messages = bot(thread.ts);
  const plans = messages.filter(
    (m) => JSON.stringify(m.blocks ?? '').includes(PLAN_APPROVE_ACTION) || /Approved by/.test(JSON.stringify(m.blocks ?? '')),
  ).length;
  const boards = messages.filter((m) => /steps done\)$/.test(m.text));
  const summaries = messages.filter((m) => m.text.startsWith(':white_check_mark: Done')).length;
  if (plans > 1 || boards.length > 1 || summaries > 1) {
    duplicates += 1;
    console.log(`duplicate in ${thread.ts} (kill ${thread.point}): plans ${plans}, boards ${boards.length}, summaries ${summaries}`);
  }
  if (summaries === 0 || !boards.some((b) => b.text.startsWith('Succeeded:'))) {
    lost += 1;
    console.log(`lost: ${thread.ts} (kill ${thread.point}): ${messages.map((m) => m.text.slice(0, 40)).join(' | ')}`);
  }
}

for (const replica of replicas) replica.child.kill('SIGKILL');
await fake.stop();
await postgresDb?.drop();
rmSync(cwd, { recursive: true, force: true });

const sorted = [...resumeMs].sort((a, b) => a - b);
const engine = postgresDb ? `postgres, ${replicaCount} replica${replicaCount > 1 ? 's' : ''}` : 'pglite';
const gaps = [...gapMs].sort((a, b) => a - b);
console.log(`chaos (${engine}): runs ${threads.length}, kills ${kills}, duplicates ${duplicates}, lost ${lost}`);
printFigures(`chaos ${engine}`, [
  { name: 'runs', value: threads.length, unit: '' },
  { name: 'kills', value: kills, unit: '' },
  { name: 'duplicated threads', value: duplicates, unit: '', ...atMost(0)(duplicates) },
  { name: 'lost runs', value: lost, unit: '', ...atMost(0)(lost) },
  {
    name: 'resume after restart (process running → thread moves), median',
    value: sorted[Math.floor(sorted.length / 2)] ?? 0,
    unit: 'ms',
    ...atMost(2000)(sorted[Math.floor(sorted.length / 2)] ?? 0),
  },
  { name: 'resume after restart, max', value: sorted.at(-1) ?? 0, unit: 'ms' },
  { name: 'kill to thread moving again, median', value: gaps[Math.floor(gaps.length / 2)] ?? 0, unit: 'ms' },
  { name: 'kill to thread moving again, max', value: gaps.at(-1) ?? 0, unit: 'ms' },
]);
