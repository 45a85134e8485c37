import type { DiffLine } from '../plan-diff.ts';
import type { Plan } from '../plan.ts';
import type { Text } from '../text.ts';
import type { ConfirmationRecord, EscalationRecord, ModelUsage, RunRecord, StepStatus } from './run-store.ts';
import type { Risk } from './tool.ts';

export interface BoardStep {
  stepId: string;
  title: string;
  tool: string;
  kind: 'forward' | 'rollback';
  status: StepStatus;
  elapsedMs: number | null;
  /** Links to what the step read or made (html_url of a PR, a workflow run…). */
  url: string | null;
  note: string | null;
}

export interface BoardState {
  runId: string;
  goal: string;
  planVersion: number;
  runStatus: RunRecord['status'];
  steps: BoardStep[];
  startedAt: Date;
  elapsedMs: number;
}

export interface ProposedPlan {
  run: RunRecord;
  version: number;
  plan: Plan;
  authorKind: 'planner' | 'human' | 'runbook';
  authorId: string;
  /** Risk of each step's tool, for badges. */
  risks: Record<string, Risk>;
  /**
   * Each step's target args (forward and rollback, by step id): what the view shows in full for a
   * write. A step missing here has every arg counted.
   */
  targets?: Record<string, readonly string[]>;
  /** Lines describing what changed from the parent version, when there is one. */
  diff: DiffLine[] | null;
  /** Why this version exists ("replan after s3 failed: …"). */
  reason: Text | null;
  /** Set when the plan will run without a click (read-only auto-run). */
  autoApproved: boolean;
  /** Who approved an auto-approved plan: "tandem:auto", or "runbook:<name>" for a pre-approved scheduled runbook. */
  approvedBy?: string;
  /** The version's content digest (plan-digest.ts): shown in short, carried by the Approve button. */
  digest?: string;
  /** Tandem's GitHub writes of this plan end with an attribution line (TANDEM_ATTRIBUTION); the plan says so. */
  attribution?: boolean;
  /** Under TANDEM_POLICY: who can approve which steps and how many approvals each still needs, one line per step. */
  approvalProgress?: readonly string[];
}

export interface RunSummary {
  run: RunRecord;
  outcome: 'succeeded' | 'failed' | 'aborted' | 'cancelled' | 'rejected';
  goal: string;
  reason: Text | null;
  changes: { title: string; url: string | null }[];
  rolledBack: { title: string; status: StepStatus }[];
  durationMs: number;
  tokens: { input: number; output: number };
  costUsd: number;
  /** Usage per role and model, when more than one model worked on the run. */
  models?: ModelUsage[];
  /** `provider:model` of the fallback planner when it wrote a plan version of this run, and why it was asked. */
  fallbackPlanner?: { author: string; reason: string } | null;
}

/**
 * How a message the run owes is delivered: `key` names it in the conversation. When an earlier
 * delivery may have reached the conversation before a crash (`mayExist`), the surface looks for the
 * message by its key before posting, so it is not posted twice.
 */
export interface Delivery {
  key: string;
  mayExist: boolean;
}

/**
 * How a run talks to people. Slack is one implementation; tests use an in-memory one.
 * Every method is best-effort from the agent's view: a surface that fails is logged, the run goes on.
 */
export interface Surface {
  planning(run: RunRecord): Promise<void>;
  proposePlan(proposal: ProposedPlan): Promise<void>;
  /** The plan is only questions for the requester, or the run needs to tell them something it cannot do. */
  askRequester(run: RunRecord, questions: string[]): Promise<void>;
  reportProgress(run: RunRecord, board: BoardState): Promise<void>;
  escalate(run: RunRecord, escalation: EscalationRecord, stakes: string, delivery?: Delivery): Promise<void>;
  /** ask_human: a step waits for an answer in the conversation. */
  ask(run: RunRecord, stepId: string, question: string, delivery?: Delivery): Promise<void>;
  /** A write's target was filled from a person's or a model's words: show the values, offer Confirm and Abort. */
  confirmTarget(run: RunRecord, confirmation: ConfirmationRecord, delivery?: Delivery): Promise<void>;
  notify(run: RunRecord, text: Text): Promise<void>;
  /** The planner's model provider is down (and any fallback too): say so, and offer to plan the same task again. */
  plannerUnavailable?(run: RunRecord, reason: Text): Promise<void>;
  finish(summary: RunSummary, delivery?: Delivery): Promise<void>;
  /** A link to the run's conversation (Slack: the thread's permalink), for attribution lines; undefined when there is none. */
  threadLink?(run: RunRecord): Promise<string | undefined>;
}
