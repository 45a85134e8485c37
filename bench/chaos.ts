/**
 * Chaos: N runs of a real `tandem start` (mention → Approve → wait, file a GitHub issue, wait → summary),
 * each with one fault injected at random while it runs: the process killed with SIGKILL (right after a
 * mention's ack, after an Approve's ack, or at a random moment) and restarted, the database cut and
 * restored (a TCP proxy; PostgreSQL only), Slack answering 503 for a few seconds or not answering at all for
 * 12–18 s (longer than the bot's Web API timeout), GitHub resetting the
 * write's connection after it took effect, the model answering 503 (the thread offers Try again, which
 * is clicked), or nothing. Slack's side behaves as Slack does: a request not answered 2xx is sent again.
 * Prints runs started/finished/escalated/stuck, duplicated and missing writes, lost acknowledged
 * requests and the time from the end of a fault to the thread moving again.
 * Run: npm run chaos [-- runs]      (PGlite, one process; faults that need PostgreSQL are not drawn)
 *      CHAOS_FAULTS=slack-hang,slack-5xx npm run chaos   (draws from those faults only)
 *      TEST_DATABASE_URL=postgres://… npm run chaos   (PostgreSQL behind the proxy)
 * Bounded: each run waits at most 60 s for its end; everything listens on 127.0.0.1.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PLAN_APPROVE_ACTION } from '../src/bot/views/plan/plan-message.ts';
import { PLANNER_TRY_AGAIN_ACTION } from '../src/bot/views/run/planner-unavailable.ts';
import type { FakeMessage, RecordedCall } from '../src/workspace/slack-fake/index.ts';
import { openAiReply } from '../test/fakes/openai-server.ts';
import { atMost, printFigures } from './support/figures.ts';
import { PLAN, RUNBOOK_TASK, startChaosWorld, type Replica } from './support/chaos-world.ts';

const RUNS = Number(process.argv[2] ?? 12);
const FAULTS = ['none', 'kill-event-ack', 'kill-click-ack', 'kill-random', 'db-cut', 'slack-5xx', 'slack-hang', 'github-reset', 'model-errors'] as const;
type Fault = (typeof FAULTS)[number];
const HANG_EFFECTS = ['at-once', 'on-release', 'never'] as const;
const RUN_DEADLINE_MS = 60_000;

const world = await startChaosWorld();
const { slack, github, openai, proxy } = world;
// CHAOS_FAULTS=slack-hang,db-cut draws from those only (to look at one fault closely).
const chosen = process.env.CHAOS_FAULTS?.split(',').map((name) => name.trim());
const drawable = FAULTS.filter((fault) => (fault !== 'db-cut' || proxy) && (!chosen || chosen.includes(fault)));
if (drawable.length === 0) throw new Error(`CHAOS_FAULTS names none of: ${FAULTS.join(', ')}`);
let replica: Replica = await world.startReplica();
const recoveryMs: number[] = [];
let lostRequests = 0;
let refusedThenRetried = 0;
let refusedDuringCut = 0;
let kills = 0;

const bot = (ts: string): FakeMessage[] => slack.model.thread('C1', ts).filter((m) => m.user === slack.model.bot.userId);
const withAction = (ts: string, action: string) => bot(ts).find((m) => JSON.stringify(m.blocks ?? '').includes(action));
const isSummary = (m: FakeMessage) => /^:(white_check_mark|x|octagonal_sign|no_entry_sign|no_good): /.test(m.text);
const isEscalation = (m: FakeMessage) => m.text.startsWith('Escalation');
const touches = (call: RecordedCall, ts: string) =>
  call.method.startsWith('chat.') && (call.params.thread_ts === ts || slack.model.findMessage('C1', call.params.ts ?? '')?.threadTs === ts);

async function until(predicate: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** As Slack does: a request answered with anything but a 2xx (or not at all) is sent again, to whichever process is up. */
async function deliver(send: (replica: Replica) => Promise<{ status: number }>): Promise<boolean> {
  for (let tries = 0; tries < 60; tries++) {
    const status = await send(replica).then(
      (answer) => answer.status,
      () => 0,
    );
    if (status >= 200 && status < 300) return true;
    if (tries === 0) refusedThenRetried += 1;
    await sleep(500);
  }
  return false;
}

async function killAndRestart(): Promise<void> {
  const victim = replica;
  victim.child.kill('SIGKILL');
  if (victim.child.exitCode === null && victim.child.signalCode === null) await new Promise((resolve) => victim.child.once('exit', resolve));
  kills += 1;
  replica = await world.startReplica();
}

/** From the end of a fault to the thread's next Slack call (a run that was done meanwhile has nothing to measure). */
function measureRecovery(ts: string, endedAt: number): void {
  void until(() => slack.calls.some((call) => call.at >= endedAt && touches(call, ts)), RUN_DEADLINE_MS).then((moved) => {
    const next = slack.calls.find((call) => call.at >= endedAt && touches(call, ts));
    if (moved && next && !bot(ts).some((m) => isSummary(m) && Number(m.ts) * 1000 < endedAt)) recoveryMs.push(next.at - endedAt);
  });
}

async function breakDuring(fault: Fault, ts: string): Promise<void> {
  await sleep(Math.random() * 1500);
  if (fault === 'kill-random') {
    await killAndRestart();
    measureRecovery(ts, replica.runningAt);
  } else if (fault === 'db-cut') {
    proxy!.cut();
    // A mention while the store is unreachable must be refused (5xx), never acknowledged and lost.
    const probe = replica.driver.mention({ channel: 'C1', user: 'U1', text: RUNBOOK_TASK });
    const answer = await probe.catch(() => ({ status: 0 }));
    if (answer.status >= 500) refusedDuringCut += 1;
    await sleep(2000 + Math.random() * 4000);
    proxy!.restore();
    measureRecovery(ts, Date.now());
    threads.push({ ts: probe.ts, fault: 'db-cut (refused mention)', probe: { eventId: probe.eventId } });
  } else if (fault === 'slack-5xx') {
    slack.outage({ status: 503 });
    await sleep(2000 + Math.random() * 3000);
    slack.outage(undefined);
    measureRecovery(ts, Date.now());
  } else if (fault === 'slack-hang') {
    // Longer than the bot's 10 s Web API timeout: its calls give up while Slack acts on them at once, later, or never.
    slack.hang({ effect: HANG_EFFECTS[Math.floor(Math.random() * HANG_EFFECTS.length)]! });
    await sleep(12_000 + Math.random() * 6000);
    slack.release();
    measureRecovery(ts, Date.now());
  }
}

const threads: { ts: string; fault: string; probe?: { eventId: string } }[] = [];
const startedAt = Date.now();
for (let run = 0; run < RUNS; run++) {
  const fault = drawable[Math.floor(Math.random() * drawable.length)]!;
  const model = fault === 'model-errors';
  if (model) openai.enqueue(...[1, 2, 3].map(() => openAiReply.status(503, { 'retry-after-ms': '5' })));
  if (fault === 'github-reset') github.fault({ method: 'POST', path: /\/repos\/acme\/api\/issues$/, afterEffect: true, drop: true });
  const text = model ? `<@UBOT> chaos run ${run}: file an issue` : RUNBOOK_TASK;
  const sent = replica.driver.mention({ channel: 'C1', user: 'U1', text });
  threads.push({ ts: sent.ts, fault });
  const mentionEvent = { type: 'app_mention', user: 'U1', text, ts: sent.ts, channel: 'C1', event_ts: sent.ts };
  const firstAnswer = await sent.catch(() => ({ status: 0 }));
  if (firstAnswer.status !== 200) await deliver((r) => r.driver.event(mentionEvent, { eventId: sent.eventId, retryNum: 1 }));
  if (fault === 'kill-event-ack') await killAndRestart();
  if (model && (await until(() => withAction(sent.ts, PLANNER_TRY_AGAIN_ACTION) !== undefined, 30_000))) {
    openai.enqueue(openAiReply.json(PLAN));
    await deliver((r) => r.driver.clickButtonIn(withAction(sent.ts, PLANNER_TRY_AGAIN_ACTION)!, PLANNER_TRY_AGAIN_ACTION, 'U1'));
  }
  if (await until(() => withAction(sent.ts, PLAN_APPROVE_ACTION) !== undefined, 30_000)) {
    await deliver((r) => r.driver.clickButtonIn(withAction(sent.ts, PLAN_APPROVE_ACTION)!, PLAN_APPROVE_ACTION, 'U2'));
    if (fault === 'kill-click-ack') await killAndRestart();
    await breakDuring(fault, sent.ts);
  }
  await until(() => bot(sent.ts).some((m) => isSummary(m) || isEscalation(m)), RUN_DEADLINE_MS);
  const ending = bot(sent.ts).some(isSummary) ? 'finished' : bot(sent.ts).some(isEscalation) ? 'escalated' : 'STUCK';
  console.log(`run ${run + 1}/${RUNS}: ${fault}: ${ending}`);
}

// Slack sends a refused request again: the mentions refused during a database cut arrive now.
for (const thread of threads.filter((t) => t.probe)) {
  await deliver((r) =>
    r.driver.event(
      { type: 'app_mention', user: 'U1', text: RUNBOOK_TASK, ts: thread.ts, channel: 'C1', event_ts: thread.ts },
      { eventId: thread.probe!.eventId, retryNum: 1 },
    ),
  );
  await until(() => withAction(thread.ts, PLAN_APPROVE_ACTION) !== undefined, 30_000);
}
await sleep(3000); // late duplicates would land now

let finished = 0;
let escalated = 0;
let stuck = 0;
let duplicatedMessages = 0;
for (const thread of threads) {
  const messages = bot(thread.ts);
  // Every request acknowledged got its answer in the thread.
  if (messages.length === 0) lostRequests += 1;
  if (thread.probe) continue; // only planned, never approved
  const plans = messages.filter(
    (m) => JSON.stringify(m.blocks ?? '').includes(PLAN_APPROVE_ACTION) || /Approved by/.test(JSON.stringify(m.blocks ?? '')),
  ).length;
  const summaries = messages.filter(isSummary).length;
  // A thread whose model failed holds two runs (the one the planner could not plan, and Try again's): each sums up once.
  const repeated = summaries - new Set(messages.filter(isSummary).map((m) => m.text)).size;
  if (plans > 1 || repeated > 0) {
    duplicatedMessages += 1;
    console.log(`duplicate messages in ${thread.ts} (${thread.fault}): plans ${plans}, summaries ${summaries}`);
  }
  if (summaries) finished += 1;
  else if (messages.some(isEscalation)) escalated += 1;
  else {
    stuck += 1;
    console.log(`stuck: ${thread.ts} (${thread.fault}): ${messages.map((m) => m.text.slice(0, 50)).join(' | ')}`);
  }
}
const markers = github.repos.get('acme/api')!.issues.map((issue) => /tandem:(run_[a-z0-9]+\/s2)/.exec(issue.body ?? '')?.[1] ?? `unmarked-${issue.number}`);
const duplicatedWrites = markers.length - new Set(markers).size;
const finishedWithoutWrite = Math.max(
  0,
  threads.filter((t) => !t.probe && bot(t.ts).some((m) => m.text.startsWith(':white_check_mark: Succeeded'))).length - new Set(markers).size,
);

await world.close();
const sorted = [...recoveryMs].sort((a, b) => a - b);
const worst = sorted.at(-1) ?? 0;
console.log(
  `chaos (${world.engine}): runs ${RUNS}, finished ${finished}, escalated ${escalated}, stuck ${stuck}, kills ${kills}, ` +
    `requests refused and sent again ${refusedThenRetried}, mentions refused during a database cut ${refusedDuringCut}, ${Math.round((Date.now() - startedAt) / 1000)} s`,
);
printFigures(`chaos ${world.engine}`, [
  { name: 'runs started', value: RUNS, unit: '' },
  { name: 'runs finished', value: finished, unit: '' },
  { name: 'runs escalated to a person', value: escalated, unit: '' },
  { name: 'stuck runs', value: stuck, unit: '', ...atMost(0)(stuck) },
  { name: 'duplicated writes', value: duplicatedWrites, unit: '', ...atMost(0)(duplicatedWrites) },
  { name: 'duplicated plans or summaries', value: duplicatedMessages, unit: '', ...atMost(0)(duplicatedMessages) },
  { name: 'missing writes (Done without its issue)', value: finishedWithoutWrite, unit: '', ...atMost(0)(finishedWithoutWrite) },
  { name: 'lost acknowledged requests', value: lostRequests, unit: '', ...atMost(0)(lostRequests) },
  { name: 'recovery after a fault ends, median', value: sorted[Math.floor(sorted.length / 2)] ?? 0, unit: 'ms' },
  { name: 'recovery after a fault ends, max', value: worst, unit: 'ms', ...atMost(5000)(worst) },
]);
process.exit(stuck + duplicatedWrites + duplicatedMessages + finishedWithoutWrite + lostRequests > 0 || worst > 5000 ? 1 : 0);
