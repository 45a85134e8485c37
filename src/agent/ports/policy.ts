/**
 * Who may do what, asked of a policy engine (decision 028). The agent describes the person, the action,
 * what it acts on and the situation; the engine answers permit or deny with the ids of the rules behind
 * the answer. The engine is pure and synchronous: group membership is looked up by the caller first
 * (only the groups the policy names), so a decision never waits on Slack.
 */
import type { Refused } from '../model/refusal.ts';
import type { ApprovalRecord, PlanVersionRecord } from './plans.ts';
import type { RunRecord } from './runs.ts';
import type { Risk } from './tool.ts';

export const POLICY_ACTIONS = [
  'request',
  'approve',
  'confirm',
  'answer',
  'cancel',
  'abort',
  'retry',
  'skip',
  'replan',
  'schedule',
  'save_runbook',
  'auto_run',
] as const;
export type PolicyAction = (typeof POLICY_ACTIONS)[number];

/** One step of a plan version as a rule sees it; "" where an attribute does not apply. */
export interface PolicyStep {
  id: string;
  tool: string;
  risk: Risk;
  /** Lower case `owner/name`, or "". */
  repository: string;
  channel: string;
  target: string;
  rollback: boolean;
}

export type PolicyResource =
  | { kind: 'step'; step: PolicyStep }
  | { kind: 'run'; runId: string; requester: string; channel: string }
  | { kind: 'schedule'; scheduleId: string; channel: string; createdBy: string; intervalSeconds: number };

export interface PolicySituation {
  requester: string;
  channel: string;
  /** 0..1; 1 where no plan is involved. */
  confidence?: number;
  planVersion?: number;
  digest?: string;
  escalated?: boolean;
}

export interface PolicyQuestion {
  user: string;
  /** The groups (of those the policy names) the user is in. */
  groups: readonly string[];
  action: PolicyAction;
  resource: PolicyResource;
  situation: PolicySituation;
}

export interface PolicyDecision {
  permitted: boolean;
  /** The permit rules that matched (when permitted), or the forbid rules that matched (when denied). */
  rules: readonly string[];
  /** Rules that failed to evaluate (an attribute a step lacks): they neither permit nor forbid. */
  errors: readonly string[];
}

/** What a rule says about itself: its id, how many distinct people it takes, and how to name who may. */
export interface PolicyRule {
  id: string;
  effect: 'permit' | 'forbid';
  /** `@approvals("2")`: this many distinct people permitted by this rule must approve (1 when absent). */
  approvals: number;
  /** `@who("a member of @api-owners")`, or words made from the rule's principal. */
  who: string;
  /** `@reason("Merging into acme/api")`: what the rule guards, for refusals. */
  reason: string | undefined;
  file: string;
  line: number;
}

/** A loaded, validated policy set. */
export interface PolicyEngine {
  /** sha256 of the policy texts (and the schema) as loaded: decisions record it. */
  readonly hash: string;
  /** The texts, by file name, as loaded: stored under the hash so an audit can judge old decisions. */
  readonly sources: readonly PolicySource[];
  readonly rules: readonly PolicyRule[];
  /** The group ids the policy names (`Group::"S…"`): the only ones worth looking up. */
  readonly groups: readonly string[];
  /**
   * True for the built-in policy compiled from the settings (no TANDEM_POLICY): its refusals keep the sentences
   * people knew before there were policy files, instead of naming a rule they never wrote.
   */
  readonly fromSettings?: boolean;
  decide(question: PolicyQuestion): PolicyDecision;
  /** The permit rules that could permit this for somebody (the principal left unknown): who to ask. */
  whoMay(question: Omit<PolicyQuestion, 'user' | 'groups'>): readonly PolicyRule[];
}

export interface PolicySource {
  file: string;
  text: string;
}

/** Where a policy went wrong, as `file:line:column message`. */
export interface PolicyProblem {
  file: string;
  line: number;
  column: number;
  message: string;
}

/** Who is in which of the named groups (Slack user groups, read with a bounded cache). */
export interface GroupDirectory {
  groupsOf(userId: string, among: readonly string[]): Promise<readonly string[]>;
}

/** Why a version may not run: nothing approved it, no approval covers its risk, or its content changed after approval. */
export type VersionRefusalCode = 'no-approval' | 'none-covers' | 'content-changed';

/**
 * The executor's precondition: may this plan version run, and may a rollback step of it start. The wiring answers
 * it with the policy in force (decisions/version-approval.ts), so execution asks no decision code and acts on the
 * answer itself (a refusal becomes its escalation).
 */
export interface VersionApprovals {
  /**
   * Whether the stored approvals, judged by the policy in force, let `version` run as its content is now.
   * `approvals`: the run's approvals, when the caller just read them.
   */
  mayRun(run: RunRecord, version: PlanVersionRecord, approvals?: readonly ApprovalRecord[]): Promise<Refused<void, VersionRefusalCode>>;
  /** Why a rollback step of `version` must not start (its content changed after approval), or undefined. */
  rollbackContentChanged(run: RunRecord, version: PlanVersionRecord): Promise<string | undefined>;
}
