/** What `tandem audit` reads of one run, and the shape of a check over it. */
import type { PolicyEngine } from '../agent/ports/policy.ts';
import { planDigest } from '../agent/model/plan/plan-digest.ts';
import type { EventsPort } from '../agent/ports/events.ts';
import { eventsOfType, type RunEvent } from '../agent/model/run-events.ts';
import type { HumanInputPort } from '../agent/ports/human-input.ts';
import type { PlansPort } from '../agent/ports/plans.ts';
import type { ApprovalRecord, PlanVersionRecord, RunRecord, StepAttemptRecord, StepRecord } from '../agent/ports/run-store.ts';
import type { StepsPort } from '../agent/ports/steps.ts';
import type { AnyTool, Risk } from '../agent/ports/tool.ts';
import type { RepositoryAllowList } from '../agent/model/repository-allow-list.ts';

/** A Confirm of a late-bound target as the audit needs it. */
export interface AuditConfirmation {
  planVersion: number;
  stepId: string;
  status: string;
  decidedBy: string | null;
  /** The target values the person confirmed, as stored (redacted like the executed args). */
  targets: Record<string, unknown>;
  /**
   * The policy the Confirm was permitted under, its rules and the confirmer's groups then (its `target-confirmed`
   * event); undefined for a Confirm stored before they were recorded.
   */
  policy?: { hash: string; rules: readonly string[]; groups: readonly string[] } | undefined;
}

export interface RunFacts {
  run: RunRecord;
  versions: PlanVersionRecord[];
  approvals: ApprovalRecord[];
  steps: StepRecord[];
  attempts: StepAttemptRecord[];
  /** null: this store records no Confirm decisions, so the Confirm check has nothing to read. */
  confirmations: AuditConfirmation[] | null;
  /** Each version's content digest, recomputed from the stored row (plan-digest.ts). */
  digests: ReadonlyMap<number, string>;
  /** The calls a step made through other tools (agent_task's), as stored with the step. */
  innerCalls: AuditInnerCall[];
}

/** One call a tool made through another tool, from its `agent-call` event. */
export interface AuditInnerCall {
  planVersion: number;
  stepId: string;
  attempt: number;
  tool: string;
  args: unknown;
  /** Refused before it reached any tool (not listed, off the allow-list, args that do not fit): nothing was sent. */
  sent: boolean;
}

export interface AuditContext {
  riskOf(tool: string): Risk | undefined;
  toolOf(tool: string): Pick<AnyTool, 'targets' | 'outputFrom' | 'repositories'> | undefined;
  /**
   * TANDEM_REPOS as configured when the audit runs: the list in force when a run ran is not stored, so a
   * run from before the list was narrowed shows here too (worth a look, not necessarily a fault then).
   */
  repositories?: RepositoryAllowList;
  /** Whether a person is an approver by the configuration; undefined when it cannot be told here (a user group, or anyone may approve). */
  isApprover(userId: string): boolean | undefined;
  /** The policy stored under this hash (decision 028), loaded; undefined when its texts are not stored. */
  policyOf?(hash: string): PolicyEngine | undefined;
}

export interface Violation {
  runId: string;
  /** The check's name, e.g. `step-ran-without-approval`. */
  check: string;
  planVersion: number | null;
  stepId: string | null;
  message: string;
}

/** One invariant: every violation it finds in one run (none: an empty list). */
export interface AuditCheck {
  name: string;
  check(facts: RunFacts, ctx: AuditContext): Violation[];
}

/** What the audit reads of one run: its plans and approvals, steps and attempts, and Confirm decisions. */
export type RunFactsStore = Pick<PlansPort, 'listPlanVersions' | 'listApprovals'> &
  Pick<StepsPort, 'listSteps' | 'listAttempts'> &
  Pick<HumanInputPort, 'listConfirmations'> &
  Pick<EventsPort, 'listEvents'>;

export async function loadRunFacts(store: RunFactsStore, run: RunRecord): Promise<RunFacts> {
  const [versions, approvals, steps, attempts, confirmations, events] = await Promise.all([
    store.listPlanVersions(run.id),
    store.listApprovals(run.id),
    store.listSteps(run.id),
    store.listAttempts(run.id),
    store.listConfirmations(run.id),
    store.listEvents(run.id),
  ]);
  const digests = new Map(await Promise.all(versions.map(async (version) => [version.version, await planDigest(version.plan)] as const)));
  const innerCalls = events.flatMap((event) => {
    if (event.type !== 'agent-call') return [];
    const { planVersion, stepId, attempt, tool, args, refused, error } = event.data;
    // A call whose args did not fit the tool's schema was stopped before the tool too (inner-calls.ts).
    const sent = refused === undefined && !error?.startsWith('invalid args:');
    return [{ planVersion, stepId, attempt, tool, args, sent }];
  });
  return { run, versions, approvals, steps, attempts, confirmations: confirmations && withPolicies(confirmations, events), digests, innerCalls };
}

/** Each Confirm with the policy its `target-confirmed` event recorded, when it recorded one. */
function withPolicies(confirmations: readonly AuditConfirmation[], events: readonly RunEvent[]): AuditConfirmation[] {
  const confirmed = eventsOfType(events, 'target-confirmed');
  return confirmations.map((confirmation) => {
    const policy = confirmed.findLast(
      ({ data }) => data.planVersion === confirmation.planVersion && data.stepId === confirmation.stepId && data.by === confirmation.decidedBy,
    )?.data.policy;
    return policy ? { ...confirmation, policy } : confirmation;
  });
}

/** Plan versions of which at least one step (forward or rollback) started: each needs its approval. */
export function versionsThatRan(facts: RunFacts): PlanVersionRecord[] {
  const ran = new Set(facts.attempts.map((attempt) => attempt.planVersion));
  return facts.versions.filter((version) => ran.has(version.version));
}

export function violation(check: string, run: RunRecord, where: { planVersion?: number | null; stepId?: string | null }, message: string): Violation {
  return { runId: run.id, check, planVersion: where.planVersion ?? null, stepId: where.stepId ?? null, message };
}
