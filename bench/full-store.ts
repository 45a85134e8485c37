/**
 * A full store costs nothing: two stores open side by side, one empty and one holding 10,000 finished runs
 * and over 200,000 events (one real run cloned, bench/support/fill-store.ts). The same work runs on each in
 * turn, round after round, so the machine's noise falls on both alike:
 *   - throughput: a plan of 100 independent steps that do nothing, concurrency 20 (steps per second);
 *   - bookkeeping: a chain of 30 such steps, one at a time (ms per step: claim, finish, events, board);
 * and the full store's figures are printed as ratios to the empty one's (goal: within 10 %).
 * Then, on the full store, the p99 of `tandem runs`, `/tandem status`, the App Home query and one
 * housekeeping pass (the agent's sweep, the lease-lag and open-waits metrics): goal < 100 ms each.
 * Run: npx tsx bench/full-store.ts [pglite|postgres]
 * Knobs: BENCH_RUNS (finished runs, default 10000), BENCH_EVENTS (events per run, default 21),
 * BENCH_ROUNDS (default 5), BENCH_SAMPLES (query samples, default 200), BENCH_RUNS_FILLFACTOR (`runs`' fillfactor
 * instead of migration 0014's 50: 100 gives the baseline before it).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { createAgent, type Agent } from '../src/agent/agent.ts';
import type { PlannerAnswer } from '../src/agent/planning/planner-schema.ts';
import type { LlmClient, LlmRequest, LlmResponse } from '../src/agent/ports/llm.ts';
import type { RunStatus } from '../src/agent/ports/run-store.ts';
import type { AnyTool } from '../src/agent/ports/tool.ts';
import { createRunStore, leaseLagSeconds, openDatabase, openWaits, type Database } from '../src/store/index.ts';
import { quietSurface } from './quiet-surface.ts';
import { atLeast, atMost, below, printFigures, type Figure } from './support/figures.ts';
import { fillStore } from './support/fill-store.ts';
import { rawRows } from '../src/store/engine/raw-rows.ts';
import { freshPostgres } from './support/fresh-postgres.ts';
import { settingsGate } from '../src/policy/policy-in-force.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 10_000);
const EVENTS_PER_RUN = Number(process.env.BENCH_EVENTS ?? 21);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const FILLFACTOR = process.env.BENCH_RUNS_FILLFACTOR ? z.coerce.number().int().min(10).max(100).parse(process.env.BENCH_RUNS_FILLFACTOR) : undefined;
const WIDE = 100;
const CHAIN = 30;
const ACTIVE: RunStatus[] = ['planning', 'awaiting-approval', 'awaiting-answer', 'executing', 'paused', 'rolling-back'];

let nextPlan: PlannerAnswer['steps'] = [];
const plan = (count: number, chained: boolean) =>
  Array.from({ length: count }, (_, i) => ({
    id: `s${i}`,
    title: `step ${i}`,
    tool: 'noop_read',
    argsJson: '{}',
    dependsOn: chained && i > 0 ? [`s${i - 1}`] : [],
    expect: null,
  }));

const planner: LlmClient = {
  has: (role) => role === 'planner',
  async generate<T>(request: LlmRequest<T>): Promise<LlmResponse<T>> {
    const answer: PlannerAnswer = { goal: 'bench', confidence: 1, steps: nextPlan, rollback: [], questions: [] };
    return { value: request.schema.parse(answer), usage: { inputTokens: 1, outputTokens: 1 }, provider: 'bench', model: 'fixed', costUsd: 0 };
  },
};

const calls: { start: number; end: number }[] = [];
const noop: AnyTool = {
  name: 'noop_read',
  description: 'does nothing',
  risk: 'read',
  input: z.object({}),
  async run() {
    const now = performance.now();
    calls.push({ start: now, end: now });
    return { status: 'ok', output: { ok: true } };
  },
};

function agentOn(database: Database, concurrency: number, owner: string): Agent {
  return createAgent({
    store: createRunStore(database.db),
    llm: planner,
    tools: [noop],
    surface: quietSurface,
    policy: settingsGate({ approvers: [], autoRunReadOnly: true, repos: undefined }, { groupsOf: async () => [] }),
    settings: {
      budgets: { maxSteps: 100_000, maxReplans: 0, runTimeoutS: 3600, stepTimeoutS: 60, maxTokens: 1_000_000 },
      confidenceThreshold: 0.5,
      autoRunReadOnly: true,
      secrets: [],
      concurrency,
    },
    logger: { info: () => undefined, warn: () => undefined, error: (obj, msg) => console.error(msg, obj) },
    owner,
  });
}

/** One run of `steps`; the time from its first step's start to its last step's end. */
async function timedRun(agent: Agent, steps: PlannerAnswer['steps'], requester = 'UBENCH'): Promise<number> {
  nextPlan = steps;
  calls.length = 0;
  await agent.startRun({ task: 'bench', requester, conversation: { channel: 'CBENCH', threadTs: randomUUID() }, origin: 'cli' });
  await agent.idle();
  if (calls.length !== steps.length) throw new Error(`only ${calls.length} of ${steps.length} steps ran`);
  return Math.max(...calls.map((c) => c.end)) - Math.min(...calls.map((c) => c.start));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(values.length * 0.99) - 1)]!;

async function sampled(count: number, work: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return times;
}

const engine = process.argv[2] === 'postgres' ? 'postgres' : 'pglite';
const label = engine === 'postgres' ? 'PostgreSQL' : 'PGlite';
async function open() {
  const server = engine === 'postgres' ? await freshPostgres() : undefined;
  if (engine === 'postgres' && !server) throw new Error('bench/full-store.ts postgres needs TEST_DATABASE_URL or DATABASE_URL');
  const database = await openDatabase(server ? { url: server.url } : { memory: true });
  await database.migrate();
  // BENCH_RUNS_FILLFACTOR=100: the pages of `runs` filled as before migration 0014, for a baseline in the same run.
  if (FILLFACTOR) await database.db.execute(sql.raw(`alter table runs set (fillfactor = ${FILLFACTOR})`));
  return { database, drop: async () => (await database.close(), await server?.drop()) };
}

const empty = await open();
const full = await open();
// One agent a store (a chain runs one step at a time by its dependencies).
const emptyAgent = agentOn(empty.database, 20, 'bench-empty');
const fullAgent = agentOn(full.database, 20, 'bench-full');
const agents = { empty: { wide: emptyAgent, chain: emptyAgent }, full: { wide: fullAgent, chain: fullAgent } };
// The template: a real run of 5 chained steps, cloned RUNS times.
await timedRun(agents.full.chain, plan(5, true), 'UTEMPLATE');
const [template] = await createRunStore(full.database.db).listRuns({ limit: 1, requester: 'UTEMPLATE' });
const fillStarted = performance.now();
const filled = await fillStore(full.database.db, { templateRunId: template!.id, runs: RUNS, eventsPerRun: EVENTS_PER_RUN });
console.log(`${label}: filled ${filled.runs} runs, ${filled.events} events in ${((performance.now() - fillStarted) / 1000).toFixed(1)} s`);

// Both stores vacuumed and with statistics, as autovacuum keeps a store in use: without the vacuum, autovacuum
// could work through the 200,000 events just inserted while the rounds run (decision 030, session 13).
for (const side of [empty, full]) await side.database.db.execute(sql`vacuum (analyze)`);
// Warm both (JIT, prepared statements), then alternate empty and full, round by round.
for (const side of [agents.empty, agents.full]) {
  await timedRun(side.wide, plan(20, false));
  await timedRun(side.chain, plan(5, true));
}
const rates = { empty: [] as number[], full: [] as number[] };
const perStep = { empty: [] as number[], full: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  // Which store goes first swaps every round, so neither always follows the other's work.
  for (const side of round % 2 ? (['full', 'empty'] as const) : (['empty', 'full'] as const)) {
    rates[side].push(WIDE / ((await timedRun(agents[side].wide, plan(WIDE, false))) / 1000));
    perStep[side].push((await timedRun(agents[side].chain, plan(CHAIN, true))) / CHAIN);
  }
}
const throughput = { empty: median(rates.empty), full: median(rates.full) };
const bookkeeping = { empty: median(perStep.empty), full: median(perStep.full) };
console.log(`throughput, steps/s (median of ${ROUNDS}): empty ${throughput.empty.toFixed(0)}, full ${throughput.full.toFixed(0)}`);
console.log(`bookkeeping, ms per step (median of ${ROUNDS}): empty ${bookkeeping.empty.toFixed(2)}, full ${bookkeeping.full.toFixed(2)}`);

/**
 * Buffer blocks (hits and reads) the server counted so far for this database, in all and per table or index,
 * once every connection reported them.
 */
async function blocksSoFar(database: Database): Promise<{ total: number; byRelation: Map<string, number> }> {
  // A backend reports its counts within 10 s of going idle (PostgreSQL 15's PGSTAT_IDLE_INTERVAL).
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  await database.db.execute(sql`select pg_stat_clear_snapshot()`);
  const [row] = await rawRows<{ blocks: string }>(
    database.db,
    sql`select blks_hit + blks_read as blocks from pg_stat_database where datname = current_database()`,
  );
  const relations = await rawRows<{ name: string; blocks: string }>(
    database.db,
    sql`select relname as name, coalesce(heap_blks_hit, 0) + coalesce(heap_blks_read, 0) as blocks from pg_statio_user_tables
        union all select indexrelname, coalesce(idx_blks_hit, 0) + coalesce(idx_blks_read, 0) from pg_statio_user_indexes`,
  );
  return { total: Number(row!.blocks), byRelation: new Map(relations.map((r) => [r.name, Number(r.blocks)])) };
}

/**
 * What the server does per step, full ÷ empty, in buffer blocks touched: unlike the time, it does not move with
 * the machine's load, so it says whether a full store costs the database more per step (one run of each shape).
 * The blocks of an idle window as long (the replica's timers: adoption scans, renewals) are taken off.
 */
async function blocksPerStep(): Promise<Figure[]> {
  const perStep = async (side: 'empty' | 'full', shape: 'wide' | 'chain', steps: PlannerAnswer['steps']) => {
    const database = side === 'empty' ? empty.database : full.database;
    const idleFrom = await blocksSoFar(database);
    const before = await blocksSoFar(database);
    await timedRun(agents[side][shape], steps);
    const after = await blocksSoFar(database);
    const idle = before.total - idleFrom.total;
    const byRelation = new Map(
      [...after.byRelation].map(([name, blocks]) => [
        name,
        (blocks - (before.byRelation.get(name) ?? 0) - ((before.byRelation.get(name) ?? 0) - (idleFrom.byRelation.get(name) ?? 0))) / steps.length,
      ]),
    );
    return { perStep: (after.total - before.total - idle) / steps.length, idle, byRelation };
  };
  const figures: Figure[] = [];
  for (const [shape, steps] of [
    ['wide', plan(WIDE, false)],
    ['chain', plan(CHAIN, true)],
  ] as const) {
    const sides = { empty: await perStep('empty', shape, steps), full: await perStep('full', shape, steps) };
    const relations = [...sides.full.byRelation.keys()]
      .map((name) => [name, sides.full.byRelation.get(name)!, sides.empty.byRelation.get(name) ?? 0] as const)
      .filter(([, full, emptySide]) => Math.abs(full - emptySide) >= 1)
      .sort((a, b) => b[1] - b[2] - (a[1] - a[2]));
    for (const [name, fullSide, emptySide] of relations) console.log(`  ${shape}: ${name} ${emptySide.toFixed(1)} → ${fullSide.toFixed(1)} blocks a step`);
    figures.push({
      name: `database blocks per step (${shape}), full ÷ empty`,
      value: sides.full.perStep / sides.empty.perStep,
      unit: '',
      ...atMost(1.1)(sides.full.perStep / sides.empty.perStep),
      baseline: `empty store ${sides.empty.perStep.toFixed(0)} blocks a step, full ${sides.full.perStep.toFixed(0)} (pg_stat_database, an idle window of ${sides.empty.idle} / ${sides.full.idle} blocks taken off; one run each)`,
    });
  }
  return figures;
}

type Side = { database: Database; agent: Agent };
const queries: [string, (side: Side) => Promise<unknown>, number][] = [
  ['`tandem runs` (newest 20)', ({ database }) => createRunStore(database.db).listRuns({ limit: 20 }), SAMPLES],
  [
    '`/tandem status` (open runs of a channel)',
    ({ database }) => createRunStore(database.db).listRuns({ limit: 20, statuses: ACTIVE, channel: 'CFILL3' }),
    SAMPLES,
  ],
  ['App Home (a requester’s newest 20)', ({ database }) => createRunStore(database.db).listRuns({ limit: 20, requester: 'UFILL7' }), SAMPLES],
  [
    'housekeeping pass',
    async ({ database, agent }) => (await agent.housekeep(), await leaseLagSeconds(database.db), await openWaits(database.db)),
    Math.max(20, Math.floor(SAMPLES / 4)),
  ],
];
const figures: Figure[] = [
  {
    name: 'step throughput, full ÷ empty',
    value: throughput.full / throughput.empty,
    unit: '',
    ...atLeast(0.9)(throughput.full / throughput.empty),
    baseline: `empty store ${throughput.empty.toFixed(0)} steps/s, full ${throughput.full.toFixed(0)} (same run)`,
  },
  {
    name: 'bookkeeping per step, full ÷ empty',
    value: bookkeeping.full / bookkeeping.empty,
    unit: '',
    ...atMost(1.1)(bookkeeping.full / bookkeeping.empty),
    baseline: `empty store ${bookkeeping.empty.toFixed(2)} ms, full ${bookkeeping.full.toFixed(2)} ms (same run)`,
  },
];
for (const [name, work, count] of queries) {
  const sides = { empty: { database: empty.database, agent: emptyAgent }, full: { database: full.database, agent: fullAgent } };
  await sampled(5, () => work(sides.full));
  await sampled(5, () => work(sides.empty));
  const times = await sampled(count, () => work(sides.full));
  const emptyTimes = await sampled(count, () => work(sides.empty));
  figures.push({
    name: `${name} p99`,
    value: p99(times),
    unit: 'ms',
    ...below(100)(p99(times)),
    baseline: `${count} samples, median ${median(times).toFixed(2)} ms; empty store p99 ${p99(emptyTimes).toFixed(2)} ms`,
  });
}
if (engine === 'postgres') figures.push(...(await blocksPerStep()));
await empty.drop();
await full.drop();
printFigures(`full store (${label}, ${filled.runs} runs, ${filled.events} events)`, figures);
