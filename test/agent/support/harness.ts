/** Builds an agent on a store (the in-memory one in unit tests) with a scripted LLM, fake tools and the in-memory surface. */
import type { PolicyGate } from '../../../src/agent/decisions/policy-approval.ts';
import { randomUUID } from 'node:crypto';
import { createAgent, type Agent } from '../../../src/agent/agent.ts';
import type { AgentSettings } from '../../../src/agent/context.ts';
import type { LogPort } from '../../../src/agent/ports/logger.ts';
import type { GroupDirectory } from '../../../src/agent/ports/policy.ts';
import { approversGate } from '../../helpers/policy-gate.ts';
import type { Conversation, RunRecord, RunStore } from '../../../src/agent/ports/run-store.ts';
import type { AnyTool } from '../../../src/agent/ports/tool.ts';
import { InMemorySurface } from '../../../src/agent/testing/in-memory-surface.ts';
import type { LlmClient } from '../../../src/agent/ports/llm.ts';
import type { Config } from '../../../src/config/config.ts';
import { createLlmClient } from '../../../src/integrations/llm/index.ts';
import { createLogger } from '../../../src/observability/logger.ts';
import { ScriptedLlm } from './scripted-llm.ts';

export const BUDGETS = { maxSteps: 20, maxReplans: 2, runTimeoutS: 3600, stepTimeoutS: 600, maxTokens: 200_000 };

export interface Harness {
  agent: Agent;
  surface: InMemorySurface;
  llm: ScriptedLlm;
  store: RunStore;
  errors: unknown[];
  start(task?: string, requester?: string): Promise<RunRecord>;
  conversation: Conversation;
}

export function collectingLogger(errors: unknown[]): LogPort {
  return {
    info: () => undefined,
    warn: () => undefined,
    error: (obj, msg) => errors.push({ ...obj, msg }),
  };
}

export function makeHarness(options: {
  store: RunStore;
  tools: AnyTool[];
  llm?: ScriptedLlm;
  settings?: Partial<AgentSettings>;
  budgets?: Partial<typeof BUDGETS>;
  /** The built-in policy's approver list (users and groups); empty: anyone may approve. */
  approvers?: string[];
  /** Who is in the approvers' groups (a slow directory, for races); default: nobody. */
  groups?: GroupDirectory;
  /** TANDEM_POLICY's gate (decision 028): a policy file instead of the built-in policy made from `approvers`. */
  policy?: PolicyGate;
  owner?: string;
  soleOwner?: boolean;
  surface?: InMemorySurface;
  /** The agent's clock (default: the real one); a stopped one keeps every read fresh. */
  clock?: () => Date;
}): Harness {
  const llm = options.llm ?? new ScriptedLlm();
  const surface = options.surface ?? new InMemorySurface();
  const errors: unknown[] = [];
  const settings: AgentSettings = {
    budgets: { ...BUDGETS, ...options.budgets },
    confidenceThreshold: 0.6,
    autoRunReadOnly: false,
    secrets: ['s3cret-value'],
    concurrency: 8,
    retry: { retries: 2, baseDelayMs: 1 },
    ...options.settings,
  };
  const agent = createAgent({
    store: options.store,
    llm,
    tools: options.tools,
    surface,
    policy:
      options.policy ??
      approversGate(options.approvers ?? [], { autoRunReadOnly: settings.autoRunReadOnly, repos: settings.repositories, groups: options.groups }),
    settings,
    logger: collectingLogger(errors),
    owner: options.owner ?? 'replica-a',
    soleOwner: options.soleOwner,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const conversation = { channel: 'C1', threadTs: randomUUID() };
  return {
    agent,
    surface,
    llm,
    store: options.store,
    errors,
    conversation,
    start: async (task = 'do the thing', requester = 'UREQ') => {
      const run = await agent.startRun({ task, requester, conversation: { channel: 'C1', threadTs: randomUUID() }, origin: 'mention' });
      await agent.idle();
      return run;
    },
  };
}

/**
 * An agent whose model is the real client (on the fake model servers `config` points at): it plans, and read-only
 * plans run at once; the client never retries, nothing is replanned unless `settings` says so, and the client
 * records usage in `store`.
 */
export function makeModelAgent<S extends InMemorySurface = InMemorySurface>(options: {
  store: RunStore;
  config: Readonly<Config>;
  tools: (llm: LlmClient) => AnyTool[];
  settings?: Partial<AgentSettings>;
  surface?: S;
}): { agent: Agent; llm: LlmClient; surface: S; errors: unknown[] } {
  const { store, config } = options;
  const llm = createLlmClient({ config, logger: createLogger({ level: 'silent', secrets: [] }), onUsage: (usage) => store.recordUsage(usage), maxRetries: 0 });
  const surface = options.surface ?? (new InMemorySurface() as S);
  const errors: unknown[] = [];
  const agent = createAgent({
    store,
    llm,
    tools: options.tools(llm),
    surface,
    policy: approversGate([], { autoRunReadOnly: options.settings?.autoRunReadOnly ?? true, repos: options.settings?.repositories ?? config.github.repos }),
    settings: {
      budgets: { ...BUDGETS, maxReplans: 0 },
      confidenceThreshold: 0.6,
      autoRunReadOnly: true,
      secrets: [],
      concurrency: 4,
      retry: { retries: 0, baseDelayMs: 1 },
      repositories: config.github.repos,
      ...options.settings,
    },
    logger: collectingLogger(errors),
    owner: 'replica-a',
    usageRecordedByLlm: true,
  });
  return { agent, llm, surface, errors };
}
