/**
 * A store months old must answer the hot paths from indexes: with 10,000 finished runs and their events in
 * the tables, every statement that a run's execution, `tandem runs`, `/tandem status`, `/tandem runs`, the
 * App Home, a restart's resume, a housekeeping pass and the dead-replica sweep send is explained with its parameters, and none may
 * read runs, events or steps whole (a Seq Scan). (The generic plan of a statement prepared and run many
 * times is not checked: `EXPLAIN (GENERIC_PLAN)` needs PostgreSQL 16, the CI server is 15.)
 */
import { randomUUID } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, type Agent } from '../../src/agent/agent.ts';
import type { PlannerAnswer } from '../../src/agent/planning/planner-schema.ts';
import type { LlmClient, LlmRequest, LlmResponse } from '../../src/agent/ports/llm.ts';
import type { AnyTool } from '../../src/agent/ports/tool.ts';
import { FINAL_RUN_STATUSES, type RunStatus } from '../../src/agent/ports/run-store.ts';
import { createRunStore, expireLeasesOfDeadOwners, leaseLagSeconds, openWaits, type Db } from '../../src/store/index.ts';
import * as schema from '../../src/store/schema.ts';
import { fillStore } from '../../bench/support/fill-store.ts';
import { quietSurface } from '../../bench/quiet-surface.ts';
import { ENGINES, openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { approversGate } from '../helpers/policy-gate.ts';

const WATCHED = new Set(['runs', 'events', 'steps']);
const ACTIVE: RunStatus[] = ['planning', 'awaiting-approval', 'awaiting-answer', 'executing', 'paused', 'rolling-back'];

interface Statement {
  text: string;
  params: unknown[];
}

/** Every statement a client is given, its transactions' included, is recorded in `seen` while `recording`. */
function recording(seen: Map<string, Statement>) {
  const record = (text: string, params: unknown[] | undefined) => {
    if (!seen.has(text)) seen.set(text, { text, params: params ?? [] });
  };
  const pglite = (client: PGlite): PGlite =>
    new Proxy(client, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property === 'query')
          return (text: string, params?: unknown[], ...rest: unknown[]) => (
            record(text, params),
            (value as (...args: unknown[]) => unknown).call(target, text, params, ...rest)
          );
        if (property === 'transaction')
          return (work: (tx: PGlite) => unknown) => (value as (w: (tx: PGlite) => unknown) => unknown).call(target, (tx: PGlite) => work(pglite(tx)));
        return value;
      },
    });
  const postgres = <C extends Sql>(client: C): C =>
    new Proxy(client, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property === 'unsafe')
          return (text: string, params?: unknown[], ...rest: unknown[]) => (
            record(text, params),
            (value as (...args: unknown[]) => unknown).call(target, text, params, ...rest)
          );
        if (property === 'begin' || property === 'savepoint')
          return (...args: unknown[]) => {
            const work = args.pop() as (tx: Sql) => unknown;
            return (value as (...a: unknown[]) => unknown).call(target, ...args, (tx: Sql) => work(postgres(tx)));
          };
        return value;
      },
    });
  return { pglite, postgres };
}

function planner(steps: number): LlmClient {
  const answer: PlannerAnswer = {
    goal: 'explain',
    confidence: 1,
    steps: Array.from({ length: steps }, (_, i) => ({
      id: `s${i}`,
      title: `step ${i}`,
      tool: 'noop_read',
      argsJson: '{}',
      dependsOn: i === 0 ? [] : [`s${i - 1}`],
      expect: null,
    })),
    rollback: [],
    questions: [],
  };
  return {
    has: (role) => role === 'planner',
    async generate<T>(request: LlmRequest<T>): Promise<LlmResponse<T>> {
      return { value: request.schema.parse(answer), usage: { inputTokens: 1, outputTokens: 1 }, provider: 'test', model: 'fixed', costUsd: 0 };
    },
  };
}

const noop: AnyTool = {
  name: 'noop_read',
  description: 'reads nothing',
  risk: 'read',
  input: z.object({}),
  run: async () => ({ status: 'ok', output: { ok: true } }),
};

/** Seq Scans on a watched table anywhere in an EXPLAIN (FORMAT JSON) plan. */
function seqScans(plan: unknown): string[] {
  const found: string[] = [];
  const walk = (node: Record<string, unknown>) => {
    if (node['Node Type'] === 'Seq Scan' && WATCHED.has(String(node['Relation Name']))) found.push(String(node['Relation Name']));
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk((plan as { Plan: Record<string, unknown> }[])[0]!.Plan);
  return found;
}

describe.each(ENGINES)('hot-path statements on a full %s store', (engine) => {
  let database: TestDatabase;
  let db: Db;
  let agent: Agent;
  const seen = new Map<string, Statement>();
  let explain: (text: string, params: unknown[]) => Promise<unknown>;

  const startRun = async (requester: string, channel: string) => {
    await agent.startRun({ task: 'explain', requester, conversation: { channel, threadTs: randomUUID() }, origin: 'cli' });
    await agent.idle();
  };

  beforeAll(async () => {
    database = await openTestDatabase(engine);
    const wrap = recording(seen);
    const client = (database.db as unknown as { $client: PGlite | Sql }).$client;
    if (engine === 'pglite') {
      const pglite = client as PGlite;
      db = drizzlePglite(wrap.pglite(pglite), { schema }) as unknown as Db;
      explain = async (text, params) => (await pglite.query<Record<string, unknown>>(text, params)).rows[0]!['QUERY PLAN'];
    } else {
      const sqlClient = client as Sql;
      db = drizzlePostgres(wrap.postgres(sqlClient), { schema }) as unknown as Db;
      explain = async (text, params) => ((await sqlClient.unsafe(text, params as never[])) as unknown as Record<string, unknown>[])[0]!['QUERY PLAN'];
    }
    agent = createAgent({
      store: createRunStore(db),
      llm: planner(3),
      tools: [noop],
      surface: quietSurface,
      policy: approversGate([], { autoRunReadOnly: true }),
      settings: {
        budgets: { maxSteps: 50, maxReplans: 0, runTimeoutS: 600, stepTimeoutS: 60, maxTokens: 1_000_000 },
        confidenceThreshold: 0.5,
        autoRunReadOnly: true,
        secrets: [],
        concurrency: 4,
      },
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      owner: 'explain',
    });
    await startRun('UTEMPLATE', 'CTEMPLATE');
    const [template] = await createRunStore(db).listRuns({ limit: 1, requester: 'UTEMPLATE' });
    expect(template?.status).toBe('succeeded');
    const filled = await fillStore(db, { templateRunId: template!.id, runs: 10_000, eventsPerRun: 12 });
    expect(filled.runs).toBeGreaterThan(10_000);
    expect(filled.events).toBeGreaterThan(100_000);
    seen.clear();
    // What the hot paths send: one more run, the listings, a restart's resume, a housekeeping pass.
    await startRun('UFILL3', 'CFILL3');
    const store = createRunStore(db);
    await store.listRuns({ limit: 20 }); // tandem runs
    await store.listRuns({ limit: 20, statuses: ACTIVE, channel: 'CFILL3' }); // /tandem status
    await store.listRuns({ limit: 10, requester: 'UFILL3' }); // /tandem runs
    await store.listRuns({ limit: 20, requester: 'UFILL3' }); // App Home
    await store.listRuns({ limit: 200, statuses: FINAL_RUN_STATUSES });
    await agent.resume();
    await agent.housekeep();
    await leaseLagSeconds(db);
    await openWaits(db);
    await expireLeasesOfDeadOwners(db, () => false); // every 5 s on each replica, before the inbox resumes
    await agent.shutdown(1_000);
  }, 180_000);
  afterAll(() => database?.destroy());

  it('recorded the hot paths’ statements', () => {
    const texts = [...seen.keys()].join('\n');
    for (const table of WATCHED) expect(texts).toMatch(new RegExp(`\\b${table}\\b`));
    expect(seen.size).toBeGreaterThan(20);
  });

  it('reads runs, events and steps through an index in every statement, with its parameters', async () => {
    const scans: string[] = [];
    for (const { text, params } of seen.values()) {
      if (!/^\s*(select|insert|update|delete|with)\b/i.test(text)) continue;
      const found = seqScans(await explain(`explain (format json) ${text}`, params));
      if (found.length) scans.push(`${found.join(', ')}: ${text}`);
    }
    expect(scans).toEqual([]);
  });

  it('reads only a run’s checks, by their partial index, for its board and its summary: not its whole event log', async () => {
    const byType = [...seen.values()].filter(({ text }) => text.includes("type = 'step-evaluated'"));
    // The board drawn at the run's end and the summary each read them, in a statement of its own kind.
    expect(byType.length).toBeGreaterThanOrEqual(2);
    for (const { text, params } of byType) expect(indexesUsed(await explain(`explain (format json) ${text}`, params))).toContain('events_checks_idx');
    const wholeLog = [...seen.keys()].filter((text) => /from "events" where "events"."run_id" = \$1 order by/.test(text));
    expect(wholeLog).toEqual([]);
  });
});

/** The indexes an EXPLAIN (FORMAT JSON) plan reads, anywhere in it. */
function indexesUsed(plan: unknown): string[] {
  const found: string[] = [];
  const walk = (node: Record<string, unknown>) => {
    if (typeof node['Index Name'] === 'string') found.push(node['Index Name']);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk((plan as { Plan: Record<string, unknown> }[])[0]!.Plan);
  return found;
}
