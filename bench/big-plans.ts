/**
 * Big plans cost at most linear time: the per-transition cost of a 50-step plan against a 5-step plan, each a
 * chain of instant read steps on in-memory PGlite (a transition: a step claimed, run and finished, its board
 * redrawn), the two plans alternating round by round, medians compared (goal 50 ÷ 5 ≤ 3). Then the pure parts
 * a transition calls, timed alone on the real records of the runs just made: the executor's rules
 * (nextActions) and the board (buildBoard, redrawn with its cache as the driver does), 50 ÷ 5 each, so a
 * part that grows with the plan shows by name.
 * The CPU this process spends a step and the statements it sends a step, over a whole run, are printed too:
 * they compare at any load, where the wall time measures the wait for a core.
 * Run: npx tsx bench/big-plans.ts    Knobs: BENCH_ROUNDS (default 5), BENCH_CALLS (pure calls, default 20000).
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { z } from 'zod';
import { createAgent, type Agent } from '../src/agent/agent.ts';
import { buildBoard, type BoardLines } from '../src/agent/delivery/board.ts';
import { nextActions, type ExecutorState } from '../src/agent/execution/execution-rules.ts';
import type { Plan } from '../src/agent/model/plan/plan.ts';
import type { LlmClient } from '../src/agent/ports/llm.ts';
import type { RunStore } from '../src/agent/ports/run-store.ts';
import type { AnyTool } from '../src/agent/ports/tool.ts';
import { createRunStore, openDatabase } from '../src/store/index.ts';
import { quietSurface } from './quiet-surface.ts';
import { atMost, printFigures } from './support/figures.ts';
import { settingsGate } from '../src/policy/policy-in-force.ts';
import { countingStatements } from './support/statement-count.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const SMALL = 5;
const BIG = 50;

const chain = (count: number): Plan => ({
  schemaVersion: 1,
  goal: `a chain of ${count}`,
  confidence: 1,
  steps: Array.from({ length: count }, (_, i) => ({ id: `s${i + 1}`, title: `step ${i + 1}`, tool: 'instant', args: {}, dependsOn: i ? [`s${i}`] : [] })),
  rollback: [],
});
let nextPlan = chain(SMALL);
const calls: number[] = [];
const instant: AnyTool = {
  name: 'instant',
  description: 'returns at once',
  risk: 'read',
  input: z.object({}),
  async run() {
    calls.push(performance.now());
    return { status: 'ok', output: { ok: true } };
  },
};
const noModel: LlmClient = { has: () => false, generate: () => Promise.reject(new Error('no model in this bench')) };

const database = await openDatabase({ memory: true });
await database.migrate();
// Statements and CPU per transition do not move with the machine's load as the wall time does.
const statements = countingStatements(database);
const store: RunStore = createRunStore(statements.db);
const agent: Agent = createAgent({
  store,
  llm: noModel,
  tools: [instant],
  surface: quietSurface,
  policy: settingsGate({ approvers: [], autoRunReadOnly: false, repos: undefined }, { groupsOf: async () => [] }),
  settings: {
    budgets: { maxSteps: 10_000, maxReplans: 0, runTimeoutS: 3600, stepTimeoutS: 60, maxTokens: 1_000_000 },
    confidenceThreshold: 0.5,
    autoRunReadOnly: false,
    secrets: [],
    concurrency: 4,
  },
  logger: { info: () => undefined, warn: () => undefined, error: (obj, msg) => console.error(msg, obj) },
  owner: 'bench',
  runbooks: { match: () => ({ name: 'bench', plan: nextPlan, preApproved: true }) },
});

/**
 * One run of a chain; ms per transition, from the first step's start to the last step's end, and the CPU and
 * statements of the whole run (planning and the summary included) per step.
 */
async function perTransition(count: number): Promise<{ ms: number; cpuMs: number; statements: number; runId: string }> {
  nextPlan = chain(count);
  calls.length = 0;
  const cpu = process.cpuUsage();
  const sent = statements.sent;
  const run = await agent.startRun({ task: 'bench', requester: 'UBENCH', conversation: { channel: 'CBENCH', threadTs: randomUUID() }, origin: 'schedule' });
  await agent.idle();
  if (calls.length !== count) throw new Error(`only ${calls.length} of ${count} steps ran`);
  const used = process.cpuUsage(cpu);
  return {
    ms: (calls.at(-1)! - calls[0]!) / (count - 1),
    cpuMs: (used.user + used.system) / 1000 / count,
    statements: (statements.sent - sent) / count,
    runId: run.id,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

await perTransition(SMALL);
await perTransition(BIG);
const small: number[] = [];
const big: number[] = [];
const cpuSmall: number[] = [];
const cpuBig: number[] = [];
const sentSmall: number[] = [];
const sentBig: number[] = [];
let bigRun = '';
let smallRun = '';
for (let round = 0; round < ROUNDS; round++) {
  const s = await perTransition(SMALL);
  const b = await perTransition(BIG);
  small.push(s.ms);
  big.push(b.ms);
  cpuSmall.push(s.cpuMs);
  cpuBig.push(b.cpuMs);
  sentSmall.push(s.statements);
  sentBig.push(b.statements);
  smallRun = s.runId;
  bigRun = b.runId;
}
const ratio = median(big) / median(small);
const cpuRatio = median(cpuBig) / median(cpuSmall);
console.log(`per transition (median of ${ROUNDS}): ${SMALL} steps ${median(small).toFixed(2)} ms, ${BIG} steps ${median(big).toFixed(2)} ms`);
console.log(`CPU per step, whole run: ${SMALL} steps ${median(cpuSmall).toFixed(2)} ms, ${BIG} steps ${median(cpuBig).toFixed(2)} ms`);
console.log(`statements per step, whole run: ${SMALL} steps ${median(sentSmall).toFixed(2)}, ${BIG} steps ${median(sentBig).toFixed(2)}`);

/** The pure parts, each called CALLS times on a run's records as they stood halfway. */
async function pureCosts(runId: string): Promise<{ rules: number; board: number }> {
  const run = (await store.getRun(runId))!;
  const version = (await store.getPlanVersion(runId, run.currentPlanVersion!))!;
  const records = await store.listSteps(runId, version.version);
  const half = Math.floor(records.length / 2);
  const halfway = records.map((record, i) => (i < half ? record : { ...record, status: 'pending' as const, startedAt: null, finishedAt: null }));
  const state: ExecutorState = {
    steps: version.plan.steps,
    records: new Map(halfway.map((record) => [record.stepId, record])),
    inFlight: new Set([halfway[half]!.stepId]),
    escalated: new Set(),
    replanning: null,
    replanAnswers: new Set(),
    stopping: false,
    attempts: half,
    tokens: 0,
    tokensReadAt: new Date(),
    replans: 0,
    runStartedAt: run.createdAt,
    now: new Date(),
    budgets: { maxSteps: 10_000, maxReplans: 0, runTimeoutS: 3600, stepTimeoutS: 60, maxTokens: 1_000_000 },
    concurrency: 4,
    owner: 'bench',
    soleOwner: true,
  };
  const time = (work: () => unknown) => {
    for (let i = 0; i < 1000; i++) work();
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) work();
    return ((performance.now() - started) / CALLS) * 1000; // µs
  };
  const drawn: BoardLines = new WeakMap();
  const now = new Date();
  return {
    rules: time(() => nextActions(state)),
    board: time(() => buildBoard(run, version.version, version.plan, halfway, now, drawn)),
  };
}
const pureSmall = await pureCosts(smallRun);
const pureBig = await pureCosts(bigRun);
await database.close();
console.log(`rules (nextActions) per call: ${SMALL} steps ${pureSmall.rules.toFixed(2)} µs, ${BIG} steps ${pureBig.rules.toFixed(2)} µs`);
console.log(`board (buildBoard, cached lines) per call: ${SMALL} steps ${pureSmall.board.toFixed(2)} µs, ${BIG} steps ${pureBig.board.toFixed(2)} µs`);
printFigures('big plans (PGlite)', [
  {
    name: `per-transition cost, ${BIG} ÷ ${SMALL} steps`,
    value: ratio,
    unit: '',
    ...atMost(3)(ratio),
    baseline: `${SMALL}-step chain ${median(small).toFixed(2)} ms, ${BIG}-step ${median(big).toFixed(2)} ms per transition (same run)`,
  },
  {
    name: `CPU per step (whole run), ${BIG} ÷ ${SMALL} steps`,
    value: cpuRatio,
    unit: '',
    ...atMost(3)(cpuRatio),
    baseline: `${median(cpuSmall).toFixed(2)} vs ${median(cpuBig).toFixed(2)} ms of this process's CPU a step, planning and summary included (load ${loadavg()[0]!.toFixed(1)})`,
  },
  {
    name: `statements per step (whole run), ${BIG} ÷ ${SMALL} steps`,
    value: median(sentBig) / median(sentSmall),
    unit: '',
    baseline: `${median(sentSmall).toFixed(2)} vs ${median(sentBig).toFixed(2)} statements a step (a run's fixed statements spread over more steps)`,
  },
  {
    name: `rules per call, ${BIG} ÷ ${SMALL} steps`,
    value: pureBig.rules / pureSmall.rules,
    unit: '',
    baseline: `${pureSmall.rules.toFixed(2)} µs vs ${pureBig.rules.toFixed(2)} µs (linear would be ${BIG / SMALL})`,
  },
  {
    name: `board per redraw, ${BIG} ÷ ${SMALL} steps`,
    value: pureBig.board / pureSmall.board,
    unit: '',
    baseline: `${pureSmall.board.toFixed(2)} µs vs ${pureBig.board.toFixed(2)} µs (linear would be ${BIG / SMALL})`,
  },
]);
