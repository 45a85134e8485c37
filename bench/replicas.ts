/**
 * Replicas sharing one PostgreSQL database: 500 runs of 5 chained steps with instant tools, started
 * at once and spread over 1, 2 and then 4 replicas, each a process of its own (this file, forked) with
 * its own agent and connection pool. Prints steps/s in total and per replica; with instant tools the work
 * is the agent's bookkeeping on the database. Every step must run exactly once across the replicas
 * (checked). On a 2-core machine the total cannot grow past 2 replicas: the goal is that 4 lose nothing,
 * 4 replicas ≥ 0.9 × the throughput of 2, measured in the same run.
 * On a machine shared with other work the times measure the wait for a core, so each measurement also
 * prints the CPU a step costs, the replicas' own and the database server's (its backends for the bench's
 * database, read from /proc), and the transactions a step commits: 4 replicas lose nothing when a step
 * costs them no more CPU than it costs 2 (the figure "2 ÷ 4, CPU a step", goal ≥ 0.9: the throughput 4
 * would have against 2 with the same cores to share).
 * Run: TEST_DATABASE_URL=postgres://… npx tsx bench/replicas.ts   (or DATABASE_URL)
 * Knobs: BENCH_RUNS (default 500; a multiple of 4), BENCH_ROUNDS (rounds of 2 then 4 replicas, median taken; default 3),
 * BENCH_POOL_TOTAL (connections shared out among the replicas, as the README tells a deployment to: default 20, so
 * 10 each for 2 and 5 each for 4; 0 gives each replica the per-process default of 10), BENCH_WAITS=1 (what the server's
 * backends were doing, on average, in each measurement; its sampling commits 100 transactions a second and uses the
 * server's CPU for the bench's database, which the CPU and transactions a step then count: compare those only
 * between runs without it), BENCH_STATEMENTS=1 (the statements a step with 2 and 4 replicas, by text),
 * BENCH_WARM_UP (runs each replica does before the clock starts, default 10).
 */
import { fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import postgres from 'postgres';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createAgent } from '../src/agent/agent.ts';
import type { Plan } from '../src/agent/model/plan/plan.ts';
import type { LlmClient } from '../src/agent/ports/llm.ts';
import type { AnyTool } from '../src/agent/ports/tool.ts';
import { createRunStore, openDatabase, type Database } from '../src/store/index.ts';
import { quietSurface } from './quiet-surface.ts';
import { atLeast, printFigures, type Figure } from './support/figures.ts';
import { freshPostgres } from './support/fresh-postgres.ts';
import { settingsGate } from '../src/policy/policy-in-force.ts';
import { countingStatements } from './support/statement-count.ts';
import { printStatementsAside, sampleWaits, sentPerStep } from './support/replica-probes.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const STEPS = 5;
/** Runs each replica does before the clock starts: its JIT, and every statement on each of its connections. */
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 10);
/**
 * The connections all replicas share, as a deployment sizes them (README, "Replicas"): one budget for the server,
 * each replica's `?max=` its share, so 4 replicas bring the server no more backends than 2. 0: 10 each.
 */
const POOL_TOTAL = Number(process.env.BENCH_POOL_TOTAL ?? 20);
/** Each replica's pool: its share of the total, or postgres.js's per-process default of 10 (`src/store/database.ts`). */
const poolEach = (replicaCount: number, total = POOL_TOTAL) => (total ? Math.max(1, Math.floor(total / replicaCount)) : 10);

const plan: Plan = {
  schemaVersion: 1,
  goal: 'bench',
  confidence: 1,
  steps: Array.from({ length: STEPS }, (_, i) => ({ id: `s${i + 1}`, title: `step ${i + 1}`, tool: 'instant', args: { i }, dependsOn: i ? [`s${i}`] : [] })),
  rollback: [],
};
const noModel: LlmClient = { has: () => false, generate: () => Promise.reject(new Error('no model in this bench')) };

/** One replica process: builds its agent, says ready, starts its share of runs on "go", reports every tool call when idle. */
async function worker(url: string, owner: string, runs: number): Promise<void> {
  const database: Database = await openDatabase({ url, poolSize: Number(process.env.BENCH_POOL_EACH) });
  const statements = countingStatements(database);
  const calls: Record<string, number> = {};
  const tool: AnyTool = {
    name: 'instant',
    description: 'returns at once',
    risk: 'read',
    input: z.object({ i: z.number() }),
    async run(args: { i: number }, ctx) {
      const key = `${ctx.runId}/${ctx.stepId}`;
      calls[key] = (calls[key] ?? 0) + 1;
      return { status: 'ok', output: { i: args.i } };
    },
  };
  const agent = createAgent({
    store: createRunStore(statements.db),
    llm: noModel,
    tools: [tool],
    surface: quietSurface,
    policy: settingsGate({ approvers: [], autoRunReadOnly: false, repos: undefined }, { groupsOf: async () => [] }),
    settings: {
      budgets: { maxSteps: 20, maxReplans: 0, runTimeoutS: 3600, stepTimeoutS: 60, maxTokens: 1_000_000 },
      confidenceThreshold: 0.5,
      autoRunReadOnly: false,
      secrets: [],
      concurrency: 4,
    },
    logger: { info: () => undefined, warn: (obj, msg) => console.warn(msg, obj), error: (obj, msg) => console.error(msg, obj) },
    owner,
    // A scheduled run of a pre-approved read-only runbook starts without a click.
    runbooks: { match: () => ({ name: 'bench', plan, preApproved: true }) },
  });
  await agent.resume();
  // Warm up this process's JIT and connections before the clock starts.
  await Promise.all(
    Array.from({ length: WARM_UP }, (_, i) =>
      agent.startRun({ task: `warm-up ${i}`, requester: 'UBENCH', conversation: { channel: 'CBENCH', threadTs: randomUUID() }, origin: 'schedule' }),
    ),
  );
  await agent.idle();
  for (const key of Object.keys(calls)) delete calls[key];
  process.send!('ready');
  await new Promise((resolve) => process.once('message', resolve));
  const cpuBefore = process.cpuUsage();
  const sentBefore = new Map(statements.texts);
  await Promise.all(
    Array.from({ length: runs }, (_, i) =>
      agent.startRun({ task: `bench ${owner} ${i}`, requester: 'UBENCH', conversation: { channel: 'CBENCH', threadTs: randomUUID() }, origin: 'schedule' }),
    ),
  );
  await agent.idle();
  const cpu = process.cpuUsage(cpuBefore);
  const sent = Object.fromEntries([...statements.texts].map(([text, times]) => [text, times - (sentBefore.get(text) ?? 0)]));
  process.send!({ calls, cpuSeconds: (cpu.user + cpu.system) / 1e6, sent });
  // The pool stays open until the bench has read its backends' CPU.
  await new Promise((resolve) => process.once('message', resolve));
  await agent.shutdown(1000);
  await database.close();
}

/** The server's work for the bench's database so far: its backends' CPU (from /proc, 100 ticks a second) and transactions committed. */
async function serverWork(url: string): Promise<{ cpu: Map<number, number>; commits: number }> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const backends = await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
    const [stats] = await sql<{ commits: string }[]>`select xact_commit as commits from pg_stat_database where datname = current_database()`;
    const cpu = new Map<number, number>();
    for (const { pid } of backends) {
      try {
        // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        cpu.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
      } catch {
        // the server is not on this machine, or the backend just ended
      }
    }
    return { cpu, commits: Number(stats?.commits ?? 0) };
  } finally {
    await sql.end();
  }
}
const serverCpuBetween = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, seconds]) => sum + seconds - (before.get(pid) ?? 0), 0);

interface Measurement {
  stepsPerSecond: number;
  cpuShare: number;
  /** Milliseconds of CPU a step: the replicas' own, and the server's for the bench's database. */
  replicaCpuPerStep: number;
  serverCpuPerStep: number;
  commitsPerStep: number;
  /** Statements the replicas sent a step, by text. */
  sentPerStep: Map<string, number>;
}

async function measure(url: string, replicaCount: number, poolSize = poolEach(replicaCount)): Promise<Measurement> {
  const children = Array.from({ length: replicaCount }, (_, i) =>
    fork(fileURLToPath(import.meta.url), ['--worker', url, `bench-${replicaCount}-${i}-${randomBytes(2).toString('hex')}`, String(RUNS / replicaCount)], {
      env: { ...process.env, BENCH_POOL_EACH: String(poolSize) },
      execArgv: ['--import', 'tsx', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
    }),
  );
  const message = (child: (typeof children)[number]) =>
    new Promise<unknown>((resolve, reject) => (child.once('message', resolve), child.once('exit', (code) => reject(new Error(`replica exited (${code})`)))));
  await Promise.all(children.map(message)); // every replica is up before the clock starts
  const serverBefore = await serverWork(url);
  const waits = process.env.BENCH_WAITS ? sampleWaits(url) : undefined;
  const started = performance.now();
  const results = children.map(message);
  for (const child of children) child.send('go');
  const reports = (await Promise.all(results)) as { calls: Record<string, number>; cpuSeconds: number; sent: Record<string, number> }[];
  const seconds = (performance.now() - started) / 1000;
  if (waits) console.log(`${replicaCount} replicas, what the bench's backends were doing (samples every 10 ms): ${await waits.stop()}`);
  const serverAfter = await serverWork(url);
  for (const child of children) child.send('stop');
  const calls = Object.assign({}, ...reports.map((report) => report.calls)) as Record<string, number>;
  const total = reports.reduce((sum, report) => sum + Object.keys(report.calls).length, 0);
  if (Object.keys(calls).length !== RUNS * STEPS || total !== RUNS * STEPS || !Object.values(calls).every((count) => count === 1)) {
    throw new Error(`expected ${RUNS * STEPS} steps each run once, got ${total} calls over ${Object.keys(calls).length} steps`);
  }
  // How busy the replicas' own CPUs were: near 1 per replica means the agent, not the database, is the limit.
  const replicaCpu = reports.reduce((sum, report) => sum + report.cpuSeconds, 0);
  const steps = RUNS * STEPS;
  return {
    stepsPerSecond: steps / seconds,
    cpuShare: replicaCpu / seconds,
    replicaCpuPerStep: (replicaCpu / steps) * 1000,
    serverCpuPerStep: (serverCpuBetween(serverBefore.cpu, serverAfter.cpu) / steps) * 1000,
    // The bench's own two readings commit too.
    commitsPerStep: (serverAfter.commits - serverBefore.commits) / steps,
    sentPerStep: sentPerStep(reports, steps),
  };
}

async function main(): Promise<void> {
  const database = await freshPostgres();
  if (!database) {
    console.error('bench/replicas.ts needs PostgreSQL: set TEST_DATABASE_URL or DATABASE_URL');
    process.exit(1);
  }
  try {
    await measure(database.url, 1); // warm up the server's caches
    const one = await measure(database.url, 1);
    // 2 and 4 alternate, round by round, so the machine's noise falls on both; the median round of each counts.
    const twos: Measurement[] = [];
    const fours: Measurement[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      twos.push(await measure(database.url, 2));
      fours.push(await measure(database.url, 4));
    }
    const middle = <T extends { stepsPerSecond: number }>(results: T[]) =>
      [...results].sort((a, b) => a.stepsPerSecond - b.stepsPerSecond)[Math.floor(results.length / 2)]!;
    const two = middle(twos);
    const four = middle(fours);
    // Context, not the goal: one round of 2 and 4 with the per-process default (10 each, 40 backends for 4), what
    // a deployment that does not size its pools gets.
    const defaults = POOL_TOTAL ? { two: await measure(database.url, 2, 10), four: await measure(database.url, 4, 10) } : undefined;
    console.log(
      `${RUNS} runs × ${STEPS} chained steps, instant tools, PostgreSQL, one process per replica, ${availableParallelism()} CPUs shared with the database`,
    );
    const line = (count: number, result: Measurement): Figure => ({
      name: `${count} replica${count > 1 ? 's' : ''}, instant tools, total`,
      value: result.stepsPerSecond,
      unit: 'steps/s',
      ...(count === 1 ? atLeast(600)(result.stepsPerSecond) : {}),
      baseline: `${(result.stepsPerSecond / count).toFixed(0)} steps/s per replica, ${poolEach(count)} connections each; replica CPU ${result.cpuShare.toFixed(2)} cores; ${(result.stepsPerSecond / one.stepsPerSecond).toFixed(2)}× one replica; load ${loadavg()[0]!.toFixed(1)}`,
    });
    const cpuLine = (count: number, result: Measurement): Figure => ({
      name: `${count} replica${count > 1 ? 's' : ''}, CPU a step (replicas + server)`,
      value: result.replicaCpuPerStep + result.serverCpuPerStep,
      unit: 'ms',
      baseline: `replicas ${result.replicaCpuPerStep.toFixed(2)} ms, server ${result.serverCpuPerStep.toFixed(2)} ms; ${result.commitsPerStep.toFixed(2)} transactions a step`,
    });
    const cpuOf = (result: Measurement) => result.replicaCpuPerStep + result.serverCpuPerStep;
    // Medians of each, taken apart from the throughput's median round.
    const medianOf = (results: Measurement[], of: (result: Measurement) => number) =>
      [...results].map(of).sort((a, b) => a - b)[Math.floor(results.length / 2)]!;
    const cpuRatio = medianOf(twos, cpuOf) / medianOf(fours, cpuOf);
    for (const [count, results] of [
      [2, twos],
      [4, fours],
    ] as const)
      console.log(
        `${count} replicas, each round: ${results.map((r) => `${r.stepsPerSecond.toFixed(0)} steps/s, ${cpuOf(r).toFixed(2)} ms CPU a step (server ${r.serverCpuPerStep.toFixed(2)}), ${r.commitsPerStep.toFixed(2)} commits a step`).join('; ')}`,
      );
    const ratio = four.stepsPerSecond / two.stepsPerSecond;
    if (process.env.BENCH_STATEMENTS) printStatementsAside(two, four);
    printFigures('replicas (PostgreSQL)', [
      line(1, one),
      line(2, two),
      line(4, four),
      cpuLine(1, one),
      cpuLine(2, two),
      cpuLine(4, four),
      {
        name: '2 ÷ 4 replicas, CPU a step (throughput at equal cores)',
        value: cpuRatio,
        unit: '',
        ...atLeast(0.9)(cpuRatio),
        baseline: `median of ${ROUNDS} rounds each, replicas' CPU and the server's for the bench's database; load ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
      },
      {
        name: '4 replicas ÷ 2 replicas',
        value: ratio,
        unit: '',
        ...atLeast(0.9)(ratio),
        baseline: `median of ${ROUNDS} alternating rounds, ${POOL_TOTAL ? `${POOL_TOTAL} connections shared` : '10 connections each'}; every one of ${RUNS * STEPS} steps run once in each (checked)`,
      },
      ...(defaults
        ? [
            {
              name: '4 replicas ÷ 2, 10 connections each (the per-process default)',
              value: defaults.four.stepsPerSecond / defaults.two.stepsPerSecond,
              unit: '',
              baseline: `one round: ${defaults.two.stepsPerSecond.toFixed(0)} → ${defaults.four.stepsPerSecond.toFixed(0)} steps/s; CPU a step ${cpuOf(defaults.two).toFixed(2)} → ${cpuOf(defaults.four).toFixed(2)} ms`,
            },
          ]
        : []),
    ]);
  } finally {
    await database.drop();
  }
}

const [, , mode, workerUrl, owner, runs] = process.argv;
if (mode === '--worker') await worker(workerUrl!, owner!, Number(runs));
else await main();
