/**
 * A replica for tests: its own connection pool on a shared PostgreSQL database, its own agent (owner
 * id), surface and tools, plans from a fixed runbook so no model is needed. `die()` cuts the replica
 * off from the database the way a killed process is cut off: every store call from then on never
 * returns, so nothing it was doing is recorded, released or renewed.
 */
import { randomUUID } from 'node:crypto';
import { createAgent, type Agent } from '../../../src/agent/agent.ts';
import type { Plan } from '../../../src/agent/model/plan/plan.ts';
import type { LlmClient } from '../../../src/agent/ports/llm.ts';
import type { RunRecord, RunStore } from '../../../src/agent/ports/run-store.ts';
import type { AnyTool } from '../../../src/agent/ports/tool.ts';
import type { ReplicaSettings } from '../../../src/agent/replicas/run-leases.ts';
import { InMemorySurface } from '../../../src/agent/testing/in-memory-surface.ts';
import { createRunStore, openDatabase, type Database } from '../../../src/store/index.ts';
import { BUDGETS, collectingLogger } from '../../agent/support/harness.ts';
import { ScriptedLlm } from '../../agent/support/scripted-llm.ts';
import { spelled } from '../../helpers/words.ts';
import { approversGate } from '../../helpers/policy-gate.ts';

export interface Replica {
  owner: string;
  agent: Agent;
  surface: InMemorySurface;
  errors: unknown[];
  /** Starts a run (planned from the runbook) and waits until its plan awaits approval. */
  propose(task?: string): Promise<RunRecord>;
  approve(runId: string): Promise<void>;
  die(): void;
  close(): Promise<void>;
}

const never = () => new Promise<never>(() => undefined);

/** Every call made after `cut()` hangs forever, as if the process were gone; `slow` delays the calls it names (a store under load). */
function severable(store: RunStore, slow: Partial<Record<keyof RunStore, () => number>> = {}): { store: RunStore; cut(): void } {
  let cut = false;
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const delayMs = slow[property as keyof RunStore];
      return async (...args: unknown[]) => {
        const ms = delayMs?.() ?? 0;
        if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
        return cut ? never() : (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: wrapped, cut: () => (cut = true) };
}

/** `plan`: every task is planned from this runbook; null: the model plans (pass `llm`). */
export async function startReplica(options: {
  url: string;
  owner: string;
  tools: AnyTool[];
  plan: Plan | null;
  llm?: LlmClient;
  replicas: Partial<ReplicaSettings>;
  concurrency?: number;
  slow?: Partial<Record<keyof RunStore, () => number>>;
}): Promise<Replica> {
  const database: Database = await openDatabase({ url: options.url, poolSize: 5 });
  const { store, cut } = severable(createRunStore(database.db), options.slow);
  const surface = new InMemorySurface();
  const errors: unknown[] = [];
  let dead = false;
  const agent = createAgent({
    store,
    llm: options.llm ?? new ScriptedLlm(), // no model: plans come from the runbook
    tools: options.tools,
    surface,
    policy: approversGate(),
    settings: {
      budgets: BUDGETS,
      confidenceThreshold: 0.6,
      autoRunReadOnly: false,
      secrets: [],
      concurrency: options.concurrency ?? 4,
      retry: { retries: 0, baseDelayMs: 1 },
    },
    logger: collectingLogger(errors),
    owner: options.owner,
    runbooks: { match: () => (options.plan ? { name: 'replica-test', plan: options.plan } : undefined) },
    replicas: options.replicas,
  });
  return {
    owner: options.owner,
    agent,
    surface,
    errors,
    async propose(task = 'do the thing') {
      const run = await agent.startRun({ task, requester: 'UREQ', conversation: { channel: 'C1', threadTs: randomUUID() }, origin: 'mention' });
      // Not idle(): other runs of this replica may be mid-step for good.
      await until(async () => (await store.getRun(run.id))?.status !== 'planning', 'the plan');
      return run;
    },
    async approve(runId) {
      const decided = await agent.decide({ runId, planVersion: 1, userId: 'UAPP', decision: 'approve' });
      if (!decided.ok) throw new Error(spelled(decided.error.message));
    },
    die() {
      dead = true;
      cut();
    },
    async close() {
      if (!dead) await agent.shutdown(5_000);
      await database.close();
    },
  };
}

export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
