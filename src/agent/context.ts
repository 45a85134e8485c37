/** What every part of the agent works with: the ports, settings, and a few shared helpers. */
import type { LlmClient, LlmResponse, LlmRole } from './ports/llm.ts';
import type { LogPort } from './ports/logger.ts';
import type { PolicyGate } from './decisions/policy-approval.ts';
import type { RunStore } from './ports/run-store.ts';
import type { Surface } from './ports/surface.ts';
import type { AnyTool } from './ports/tool.ts';
import type { Plan } from './model/plan/plan.ts';
import type { RepositoryAllowList } from './model/repository-allow-list.ts';
import type { ReplicaSettings, RunLeases } from './replicas/run-leases.ts';
import type { Budgets } from './model/budgets.ts';
import type { ToolRegistry } from './model/tool-registry.ts';
import type { EffectsPort } from './ports/effects.ts';
import type { VersionApprovals } from './ports/policy.ts';
import type { RunThread } from './delivery/delivery-context.ts';

/**
 * When a wait for a person is reminded about and when it expires, and whom a reminder pings. TANDEM_ESCALATE_TO is
 * not here: the surface mentions it on every escalation and Confirm message, the copy a reminder posts included.
 */
export interface HousekeepingSettings {
  /** Every open wait (approval, question, escalation, Confirm) is re-pinged once after this many seconds. */
  remindAfterS: number;
  /** A wait unanswered this long expires: a plan can no longer be approved, a Confirm aborts its step; an escalation or question does not expire. */
  waitTtlS: number;
  /** Who may approve, by id, pinged by an approval reminder; empty: anyone may, and nobody is pinged by name. */
  approvers?: readonly string[];
}

export interface AgentSettings {
  budgets: Budgets;
  confidenceThreshold: number;
  autoRunReadOnly: boolean;
  secrets: readonly string[];
  /** TANDEM_REPOS, lower case; undefined when unset. */
  repositories?: RepositoryAllowList;
  /** Steps of one run that may run at the same time. */
  concurrency: number;
  /** Retries of a step whose tool says the error is transient (default 3 tries after the first, from 500 ms doubling). */
  retry?: { retries: number; baseDelayMs: number };
  /** Reminders and expiry of waits for people; defaults in housekeeping.ts. */
  housekeeping?: Partial<HousekeepingSettings>;
  /** TANDEM_ATTRIBUTION: GitHub writes carry who asked and approved (absent: on). */
  attribution?: boolean;
}

/** A runbook that matches a task gives its plan without a model (README: a bot with no model still plans runbook tasks). */
export interface RunbookMatcher {
  /** preApproved: the runbook may run read-only steps of a scheduled run without a click. */
  match(task: string): { name: string; plan: Plan; preApproved?: boolean } | undefined;
}

export interface AgentDeps {
  store: RunStore;
  llm: LlmClient;
  tools: AnyTool[];
  surface: Surface;
  /** The policy every decision asks (decision 028): TANDEM_POLICY's rules, or the built-in policy compiled from the settings. */
  policy: PolicyGate;
  settings: AgentSettings;
  logger: LogPort;
  /** This replica's id; step leases carry it so peers can tell a live claim from a dead one. */
  owner: string;
  clock?: () => Date;
  runbooks?: RunbookMatcher;
  /**
   * No other process shares the store (embedded PGlite holds a data-dir lock): a step left running
   * by another owner id is from a dead process, so resume() settles it at once instead of waiting
   * for its lease to run out.
   */
  soleOwner?: boolean;
  /** The LlmClient records every paid answer itself (including ones that failed to parse); the agent then records none. */
  usageRecordedByLlm?: boolean;
  /**
   * True for an error of the store itself (unreachable, restarting, full): a run whose drives fail with one is
   * driven again until the store is back, never handed to a person for it (CONTRACT §6: runs go on by themselves).
   */
  isStoreOutage?: (error: unknown) => boolean;
  /** Lease, heartbeat, adoption and refresh intervals for replicas sharing one database (tests shorten them). */
  replicas?: Partial<ReplicaSettings>;
}

/**
 * What the operator set up and what follows from it: the settings, the policy every decision asks, the registered
 * tools with their risk, and the policy's answer to the executor (may this version run).
 */
export interface AgentConfig {
  settings: AgentSettings;
  policy: PolicyGate;
  tools: ToolRegistry;
  approvals: VersionApprovals;
}

/** Where plans and model answers come from: the model, the record of what each answer cost, and the runbooks that plan without one. */
export interface AgentModels {
  llm: LlmClient;
  /** Records a model answer's tokens and cost against a run. */
  usage(runId: string | null, role: LlmRole): (response: LlmResponse<unknown>) => Promise<void>;
  runbooks: RunbookMatcher | undefined;
}

/** This process as one replica among peers sharing the store: its id, whether it is alone, and the runs it holds. */
export interface ReplicaSelf {
  owner: string;
  soleOwner: boolean;
  /** This replica's run leases: who drives a run and writes its board. */
  leases: RunLeases;
}

/** What every part of the agent is handed, by role; a part that needs less takes a narrower type. */
export interface AgentContext {
  store: RunStore;
  config: AgentConfig;
  models: AgentModels;
  thread: RunThread;
  replica: ReplicaSelf;
  logger: LogPort;
  now(): Date;
  /** What should happen next (drive a run, stop its driver, plan it, work in the background), performed by the wiring. */
  effects: EffectsPort;
}
