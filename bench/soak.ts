/**
 * A long soak: N runs (default 10,000) of 3 chained instant read steps through one process and one agent,
 * 20 at a time, on a PGlite folder or a fresh PostgreSQL database. After the first 10 % and again at the end
 * (each after a full garbage collection) it reads the process's RSS, its open file descriptors
 * (/proc/self/fd) and, on PostgreSQL, the server's connections to the database (pg_stat_activity).
 * Goals: RSS at the end ≤ 1.1 × RSS after the first 10 % (no leak); event-loop delay p99 < 20 ms over the
 * last 90 % (a timer's lateness, `support/loop-delay.ts`: not monitorEventLoopDelay, which adds its resolution);
 * descriptors and connections do not grow. Beside the delay: the part of it the main thread spent on a core (the
 * rest is its wait for one) and the main thread's CPU between ticks (what our own work held the loop for, at any
 * load), the same instrument in a second process that does nothing, and in this process idle before the soak (the
 * instrument's check: about 0).
 * Run: npx tsx bench/soak.ts [pglite|postgres]    Knobs: BENCH_SOAK_RUNS (default 10000), BENCH_BATCH (default 20),
 * BENCH_PAUSE_MS (a pause after each batch, default 0: saturation), BENCH_STATEMENTS=1 (print the statements by text),
 * BENCH_LONG_TICKS=<file> (the intervals held over 15 ms, as µs of the clock a `node --cpu-prof` profile uses).
 * Also printed, as they compare at any load: the CPU, statements and heap allocated a run over the last 90 % (and the scavenges a 1,000 runs), and RSS after a
 * full GC at every tenth, so a run shorter than 10,000 shows its trend (what it extrapolates to). And the main thread's
 * GC pauses over the last 90 % (perf_hooks' 'gc' entries, the readings' forced GCs left out): their count and wall time.
 */
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { createAgent } from '../src/agent/agent.ts';
import type { Plan } from '../src/agent/model/plan/plan.ts';
import type { LlmClient } from '../src/agent/ports/llm.ts';
import type { AnyTool } from '../src/agent/ports/tool.ts';
import { rawRows } from '../src/store/engine/raw-rows.ts';
import { createRunStore, openDatabase } from '../src/store/index.ts';
import { quietSurface } from './quiet-surface.ts';
import { atMost, below, printFigures } from './support/figures.ts';
import { freshPostgres } from './support/fresh-postgres.ts';
import { gcPauses } from './support/gc-pauses.ts';
import { describeDelay, idleLoopDelay, loopDelay, noOpProcessDelay } from './support/loop-delay.ts';
import { settingsGate } from '../src/policy/policy-in-force.ts';
import { countingStatements } from './support/statement-count.ts';

const RUNS = Number(process.env.BENCH_SOAK_RUNS ?? 10_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 20);
/** A pause between batches: 0 runs at saturation; a pause paces the soak like a team's arrivals. */
const PAUSE_MS = Number(process.env.BENCH_PAUSE_MS ?? 0);
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const plan: Plan = {
  schemaVersion: 1,
  goal: 'soak',
  confidence: 1,
  steps: [1, 2, 3].map((i) => ({ id: `s${i}`, title: `step ${i}`, tool: 'instant', args: { i }, dependsOn: i > 1 ? [`s${i - 1}`] : [] })),
  rollback: [],
};
let steps = 0;
const instant: AnyTool = {
  name: 'instant',
  description: 'returns at once',
  risk: 'read',
  input: z.object({ i: z.number() }),
  async run(args: { i: number }) {
    steps++;
    return { status: 'ok', output: { i: args.i, text: 'x'.repeat(200) } };
  },
};
const noModel: LlmClient = { has: () => false, generate: () => Promise.reject(new Error('no model in this bench')) };

const engine = process.argv[2] === 'postgres' ? 'postgres' : 'pglite';
const label = engine === 'postgres' ? 'PostgreSQL' : 'PGlite';
const server = engine === 'postgres' ? await freshPostgres() : undefined;
if (engine === 'postgres' && !server) throw new Error('bench/soak.ts postgres needs TEST_DATABASE_URL or DATABASE_URL');
const folder = server ? undefined : mkdtempSync(path.join(tmpdir(), 'tandem-soak-'));
const database = await openDatabase(server ? { url: server.url } : { dataDir: folder! });
await database.migrate();
const statements = countingStatements(database);
const store = createRunStore(statements.db);
/** Runs that did not succeed: each is described from the store at the end, before the store goes. */
const failed: string[] = [];
const agent = createAgent({
  store,
  llm: noModel,
  tools: [instant],
  surface: {
    ...quietSurface,
    finish: async (summary) => {
      if (summary.outcome !== 'succeeded') failed.push(summary.run.id);
      await quietSurface.finish(summary);
    },
  },
  policy: settingsGate({ approvers: [], autoRunReadOnly: false, repos: undefined }, { groupsOf: async () => [] }),
  settings: {
    budgets: { maxSteps: 20, maxReplans: 0, runTimeoutS: 3600, stepTimeoutS: 60, maxTokens: 1_000_000 },
    confidenceThreshold: 0.5,
    autoRunReadOnly: false,
    secrets: [],
    concurrency: 4,
  },
  logger: { info: () => undefined, warn: (obj, msg) => console.warn(msg, obj), error: (obj, msg) => console.error(msg, obj) },
  owner: 'soak',
  soleOwner: database.engine === 'pglite',
  runbooks: { match: () => ({ name: 'soak', plan, preApproved: true }) },
});
await agent.resume();

async function reading() {
  gc();
  await new Promise((resolve) => setTimeout(resolve, 100));
  gc();
  const connections =
    database.engine === 'postgres'
      ? (await rawRows<{ n: number }>(database.db, sql`select count(*)::int as n from pg_stat_activity where datname = current_database()`))[0]!.n
      : null;
  return {
    rssMb: process.memoryUsage().rss / 2 ** 20,
    heapMb: process.memoryUsage().heapUsed / 2 ** 20,
    fds: readdirSync('/proc/self/fd').length,
    /** What each descriptor is open on, so one that appears between readings can be named. */
    fdTargets: openDescriptors(),
    connections,
  };
}

const idle = await idleLoopDelay(2000);
const delay = loopDelay(10);
const pauses = gcPauses();
let noOp: ReturnType<typeof noOpProcessDelay> | undefined;
const started = performance.now();
let early: Awaited<ReturnType<typeof reading>> | undefined;
let earlyCpu: NodeJS.CpuUsage | undefined;
let earlySent = 0;
let earlyRuns = 0;
const tenths: string[] = [];
for (let done = 0; done < RUNS; done += BATCH) {
  await Promise.all(
    Array.from({ length: Math.min(BATCH, RUNS - done) }, () =>
      agent.startRun({ task: 'soak', requester: 'USOAK', conversation: { channel: 'CSOAK', threadTs: randomUUID() }, origin: 'schedule' }),
    ),
  );
  await agent.idle();
  if (PAUSE_MS) await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  const finished = done + BATCH;
  if (!early && finished >= RUNS / 10) {
    early = await reading();
    console.log(`after ${finished} runs: ${JSON.stringify({ ...early, fdTargets: undefined })}`);
    earlyCpu = process.cpuUsage();
    earlySent = statements.sent;
    earlyRuns = finished;
    noOp = noOpProcessDelay(10);
    await noOp.ready;
    delay.enable();
    pauses.enable();
  } else if (early && Math.floor(finished / (RUNS / 10)) > Math.floor(done / (RUNS / 10)) && finished < RUNS) {
    // Not measured: the reading's two forced full GCs hold the loop (20–160 ms each), a pause the product never takes.
    delay.disable();
    pauses.disable();
    tenths.push(`${finished}: ${(await reading()).rssMb.toFixed(0)} MB`);
    delay.enable();
    pauses.enable();
    console.log(`after ${tenths.at(-1)!} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
}
delay.disable();
pauses.disable();
const delaySummary = delay.summary();
const gcSummary = pauses.summary();
// BENCH_LONG_TICKS=<file>: where the loop was held, to read beside a --cpu-prof profile of the same run.
if (process.env.BENCH_LONG_TICKS) writeFileSync(process.env.BENCH_LONG_TICKS, JSON.stringify(delay.longTicks()));
const machine = await noOp!.stop();
const lateCpu = process.cpuUsage(earlyCpu);
const lateSent = statements.sent - earlySent;
const late = await reading();
const seconds = (performance.now() - started) / 1000;
const measuredRuns = RUNS - earlyRuns;
const cpuPerRunMs = (lateCpu.user + lateCpu.system) / 1000 / measuredRuns;
console.log(`RSS after a full GC at each tenth: ${tenths.join(', ')}`);
if (process.env.BENCH_STATEMENTS)
  for (const [text, times] of [...statements.texts].sort((a, b) => b[1] - a[1]).slice(0, 30))
    console.log(`${(times / RUNS).toFixed(2).padStart(6)} a run  ${text.replace(/\s+/g, ' ').slice(0, 140)}`);
console.log(`after ${RUNS} runs: ${JSON.stringify({ ...late, fdTargets: undefined })}; ${steps} steps in ${seconds.toFixed(0)} s`);
for (const runId of failed.slice(0, 3)) console.error(await describeRun(runId));
await agent.shutdown(1000);
await database.close();
await server?.drop();
if (folder) rmSync(folder, { recursive: true, force: true });

const rssRatio = late.rssMb / early!.rssMb;
const p99 = delaySummary.p99;
const ownP99 = delaySummary.own?.p99 ?? Number.NaN;
printFigures(`soak (${label}, ${RUNS} runs${PAUSE_MS ? `, ${PAUSE_MS} ms between batches of ${BATCH}` : ''})`, [
  {
    name: 'runs that did not succeed',
    value: failed.length,
    unit: '',
    ...atMost(0)(failed.length),
    baseline: `${steps} of ${RUNS * plan.steps.length} steps ran`,
  },
  {
    name: 'RSS at the end ÷ after the first 10 %',
    value: rssRatio,
    unit: '',
    ...atMost(1.1)(rssRatio),
    baseline: `${early!.rssMb.toFixed(0)} → ${late.rssMb.toFixed(0)} MB; heap ${early!.heapMb.toFixed(0)} → ${late.heapMb.toFixed(0)} MB`,
  },
  {
    name: 'event-loop delay p99 (last 90 %)',
    value: p99,
    unit: 'ms',
    ...below(20)(p99),
    baseline: `${describeDelay(delaySummary)} over ${delaySummary.count} ticks; ${(RUNS / seconds).toFixed(0)} runs/s`,
  },
  {
    // The delay less the main thread's wait for a core: what this process's own work held the loop for.
    name: 'event-loop delay p99 while on a core (last 90 %)',
    value: ownP99,
    unit: 'ms',
    ...below(20)(ownP99),
    baseline: delaySummary.own
      ? `${describeDelay(delaySummary.own)}; the main thread's CPU between ticks beyond 10 ms: ${describeDelay(delaySummary.cpu!)}`
      : 'no /proc/self/task/<pid>/schedstat here',
  },
  {
    // The machine's share: the same instrument in a process that does nothing, meanwhile; and this one idle before.
    name: 'event-loop delay p99 of a no-op process beside it',
    value: machine.p99,
    unit: 'ms',
    baseline: `${describeDelay(machine)}; this process idle before the soak: ${describeDelay(idle)}`,
  },
  {
    // The main thread's GC pauses, wall time (a pause waits for its helper threads, so it grows with the load).
    name: 'GC pause a run (last 90 %)',
    value: (gcSummary.scavenges.totalMs + gcSummary.full.totalMs) / measuredRuns,
    unit: 'ms',
    baseline: `scavenges ${gcSummary.scavenges.text}; full GCs ${gcSummary.full.text}`,
  },
  {
    // Bytes the heap took a run, and the scavenges they set off: the same at any load, unlike the pauses' wall time.
    name: 'heap allocated a run (last 90 %)',
    value: gcSummary.allocatedBytes / measuredRuns / 1024,
    unit: 'KB',
    baseline: `${((gcSummary.scavenges.count * 1000) / measuredRuns).toFixed(1)} scavenges and ${((gcSummary.full.count * 1000) / measuredRuns).toFixed(1)} full GCs a 1,000 runs`,
  },
  {
    // What a run costs this process, at any load; the time of 10,000 runs on a free core is about 10,000 × this.
    name: 'CPU a run (last 90 %)',
    value: cpuPerRunMs,
    unit: 'ms',
    baseline: `${(lateSent / measuredRuns).toFixed(1)} statements a run; 10,000 runs ≈ ${((cpuPerRunMs * 10_000) / 60_000).toFixed(1)} min of CPU; load ${loadavg()[0]!.toFixed(1)}`,
  },
  {
    name: 'file descriptors, end − after 10 %',
    value: late.fds - early!.fds,
    unit: '',
    ...atMost(0)(late.fds - early!.fds),
    baseline: `${early!.fds} → ${late.fds}${newDescriptors(early!.fdTargets, late.fdTargets)}`,
  },
  ...(late.connections === null
    ? []
    : [
        {
          name: 'database connections, end − after 10 %',
          value: late.connections - early!.connections!,
          unit: '',
          ...atMost(0)(late.connections - early!.connections!),
          baseline: `${early!.connections} → ${late.connections} (pool of 10)`,
        },
      ]),
]);

function openDescriptors(): string[] {
  return readdirSync('/proc/self/fd').map((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return 'closed meanwhile';
    }
  });
}

/** "; new: anon_inode:[eventfd]": targets open at the end more often than after 10 %. */
function newDescriptors(before: string[], after: string[]): string {
  const left = [...before];
  const added = after.filter((target) => {
    const at = left.indexOf(target);
    if (at === -1) return true;
    left.splice(at, 1);
    return false;
  });
  return added.length ? `; new: ${added.join(', ')}` : '';
}

/** What the store holds of a run that did not succeed: its steps, their attempts and its events, in order. */
async function describeRun(runId: string): Promise<string> {
  const [stepRows, attempts, events] = await Promise.all([store.listSteps(runId), store.listAttempts(runId), store.listEvents(runId)]);
  return [
    `run ${runId}:`,
    ...stepRows.map((step) => `  step ${step.stepId} v${step.planVersion} ${step.status} attempt ${step.attempt} ${step.error?.message ?? ''}`),
    ...attempts.map(
      (a) => `  attempt ${a.stepId}#${a.attempt} ${a.status} ${a.startedAt.toISOString()} → ${a.finishedAt?.toISOString() ?? '-'} ${a.error?.message ?? ''}`,
    ),
    `  events: ${events.map((event) => `${event.type}${'stepId' in event.data ? `(${String(event.data.stepId)})` : ''}`).join(' ')}`,
  ].join('\n');
}

// After the figures, so the table keeps them: a run lost is a failure of the soak, whatever its memory did.
if (failed.length || steps !== RUNS * plan.steps.length)
  throw new Error(`${failed.length} runs did not succeed; ${steps} steps ran, ${RUNS * plan.steps.length} expected`);
