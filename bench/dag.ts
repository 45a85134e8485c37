/**
 * Parallel DAG execution on the real store: a 200-step plan (10 layers of 20, each step waiting on
 * 1–3 random steps of the layer before, tool latencies 20–200 ms) runs with concurrency 20.
 * Prints wall time ÷ critical-path time (goal ≤ 1.05) and the speedup over running the steps one by one.
 * Run: npx tsx bench/dag.ts [pglite|postgres]   (postgres: a fresh database on TEST_DATABASE_URL or DATABASE_URL)
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { createAgent } from '../src/agent/agent.ts';
import type { PlannerAnswer } from '../src/agent/planning/planner-schema.ts';
import type { LlmClient, LlmRequest, LlmResponse } from '../src/agent/ports/llm.ts';
import type { AnyTool } from '../src/agent/ports/tool.ts';
import { sleep } from '../src/agent/sleep.ts';
import { createRunStore, openDatabase } from '../src/store/index.ts';
import { quietSurface } from './quiet-surface.ts';
import { atMost, printFigures } from './support/figures.ts';
import { freshPostgres } from './support/fresh-postgres.ts';
import { settingsGate } from '../src/policy/policy-in-force.ts';

const LAYERS = 10;
const WIDTH = 20;
let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;

interface BenchStep {
  id: string;
  ms: number;
  dependsOn: string[];
}

function makeDag(): BenchStep[] {
  const steps: BenchStep[] = [];
  for (let layer = 0; layer < LAYERS; layer++) {
    for (let i = 0; i < WIDTH; i++) {
      const previous = steps.filter((s) => s.id.startsWith(`l${layer - 1}_`));
      const deps = new Set<string>();
      const count = layer === 0 ? 0 : 1 + Math.floor(random() * 3);
      while (deps.size < count) deps.add(previous[Math.floor(random() * previous.length)]!.id);
      steps.push({ id: `l${layer}_${i}`, ms: 20 + Math.floor(random() * 181), dependsOn: [...deps] });
    }
  }
  return steps;
}

function criticalPathMs(steps: BenchStep[]): number {
  const finish = new Map<string, number>();
  for (const step of steps) finish.set(step.id, step.ms + Math.max(0, ...step.dependsOn.map((d) => finish.get(d)!)));
  return Math.max(...finish.values());
}

function plannerFor(steps: BenchStep[]): LlmClient {
  const answer: PlannerAnswer = {
    goal: 'bench',
    confidence: 1,
    steps: steps.map((s) => ({ id: s.id, title: s.id, tool: 'sleep_step', argsJson: JSON.stringify({ ms: s.ms }), dependsOn: s.dependsOn, expect: null })),
    rollback: [],
    questions: [],
  };
  return {
    has: (role) => role === 'planner',
    async generate<T>(request: LlmRequest<T>): Promise<LlmResponse<T>> {
      return { value: request.schema.parse(answer), usage: { inputTokens: 0, outputTokens: 0 }, provider: 'bench', model: 'fixed', costUsd: 0 };
    },
  };
}

async function runOnce(steps: BenchStep[], concurrency: number, database: Awaited<ReturnType<typeof openDatabase>>) {
  const calls: { start: number; end: number }[] = [];
  const tool: AnyTool = {
    name: 'sleep_step',
    description: 'sleeps',
    risk: 'read',
    input: z.object({ ms: z.number() }),
    async run(args: { ms: number }, ctx) {
      const call = { start: performance.now(), end: 0 };
      calls.push(call);
      await sleep(args.ms, ctx.signal);
      call.end = performance.now();
      return { status: 'ok', output: { slept: args.ms } };
    },
  };
  const agent = createAgent({
    store: createRunStore(database.db),
    llm: plannerFor(steps),
    tools: [tool],
    surface: quietSurface,
    policy: settingsGate({ approvers: [], autoRunReadOnly: true, repos: undefined }, { groupsOf: async () => [] }),
    settings: {
      budgets: { maxSteps: 200, maxReplans: 0, runTimeoutS: 3600, stepTimeoutS: 60, maxTokens: 1_000_000 },
      confidenceThreshold: 0.5,
      autoRunReadOnly: true,
      secrets: [],
      concurrency,
    },
    logger: { info: () => undefined, warn: () => undefined, error: (obj, msg) => console.error(msg, obj) },
    owner: 'bench',
  });
  const started = performance.now();
  await agent.startRun({ task: 'bench', requester: 'UBENCH', conversation: { channel: 'CBENCH', threadTs: randomUUID() }, origin: 'cli' });
  await agent.idle();
  const total = performance.now() - started;
  if (calls.length !== steps.length) throw new Error(`only ${calls.length} of ${steps.length} steps ran`);
  const first = Math.min(...calls.map((c) => c.start));
  const last = Math.max(...calls.map((c) => c.end));
  const toolMs = calls.reduce((sum, c) => sum + (c.end - c.start), 0);
  return { executionMs: last - first, totalMs: total, toolMs };
}

const engine = process.argv[2] === 'postgres' ? 'postgres' : 'pglite';
const postgres = engine === 'postgres' ? await freshPostgres() : undefined;
if (engine === 'postgres' && !postgres) throw new Error('bench/dag.ts postgres needs TEST_DATABASE_URL or DATABASE_URL');
const database = await openDatabase(postgres ? { url: postgres.url } : { memory: true });
await database.migrate();
const steps = makeDag();
const critical = criticalPathMs(steps);
const sum = steps.reduce((total, s) => total + s.ms, 0);
await runOnce(steps.slice(0, WIDTH), WIDTH, database); // warm up the store and the JIT
const parallel = await runOnce(steps, WIDTH, database);
const sequential = await runOnce(steps, 1, database);
await database.close();
await postgres?.drop();

const fmt = (ms: number) => `${(ms / 1000).toFixed(2)}s`;
const label = engine === 'postgres' ? 'PostgreSQL' : 'PGlite';
console.log(`engine: ${label}; ${steps.length} steps, ${LAYERS} layers × ${WIDTH}, latencies 20–200 ms`);
console.log(`critical path: ${fmt(critical)}; sum of latencies: ${fmt(sum)}`);
console.log(`parallel (concurrency ${WIDTH}): execution ${fmt(parallel.executionMs)} (with planning and bookkeeping ${fmt(parallel.totalMs)})`);
console.log(`one by one: execution ${fmt(sequential.executionMs)}`);
const ratio = parallel.executionMs / critical;
// Run one by one, every step pays its bookkeeping (claim, finish) on the clock: the excess over the latencies.
const bookkeeping = (sequential.executionMs - sum) / steps.length;
console.log(
  `one by one: tools' own time over their latencies ${((sequential.toolMs - sum) / steps.length).toFixed(3)} ms per step; between tools ${((sequential.executionMs - sequential.toolMs) / steps.length).toFixed(3)} ms per step`,
);
printFigures(`dag (${label})`, [
  { name: 'wall ÷ critical path', value: ratio, unit: '', ...atMost(1.03)(ratio) },
  { name: 'bookkeeping per step', value: bookkeeping, unit: 'ms', ...atMost(3)(bookkeeping) },
  {
    name: 'speedup',
    value: sequential.executionMs / parallel.executionMs,
    unit: '×',
    baseline: `the same ${steps.length} steps one by one: ${fmt(sequential.executionMs)}`,
  },
]);
