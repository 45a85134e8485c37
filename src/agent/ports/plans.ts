import type { RunEventInput } from '../model/run-events.ts';
import type { Text } from '../text/text.ts';
import type { Plan, PlanAuthorKind } from '../model/plan/plan.ts';
import type { EscalationAction, EscalationRecord, QuestionRecord } from './human-input.ts';
import type { RunRecord, RunStatus } from './runs.ts';
import type { StepErrorRecord, StepStatus } from './steps.ts';

export interface PlanVersionRecord {
  runId: string;
  version: number;
  plan: Plan;
  authorKind: PlanAuthorKind;
  /** Slack user `U…`, the model id, or the runbook name. */
  authorId: string;
  parentVersion: number | null;
  /** Why this version exists: who edited or asked for it, or what the replan answers. */
  reason: Text | null;
  createdAt: Date;
}

export interface ApprovalRecord {
  runId: string;
  planVersion: number;
  /** A Slack user, or for an auto-run the rule's name (`tandem:auto`, `runbook:<name>`). */
  userId: string;
  decision: 'approved' | 'rejected';
  /** 'person': a click checked against `need`; 'auto': the policy ran the version without one. */
  via: 'person' | 'auto';
  /** Who the approval policy required of this version when the decision was recorded. */
  need: 'anyone' | 'approver' | 'approver-not-requester' | null;
  /** For an auto-run: which rule allowed it. */
  why: string | null;
  /** The content digest of the version as approved (plan-digest.ts); null: approved before digests were recorded. */
  digest: string | null;
  /** Under TANDEM_POLICY: the policy's hash when the click was decided, and the rules that permitted it; null otherwise. */
  policyHash?: string | null;
  policyRules?: readonly string[] | null;
  /**
   * Under a policy: the groups the approver was in when the click was decided (of those the policy names, the
   * ones the decision asked with), so the audit judges it with the membership of that time; null: not recorded.
   */
  policyGroups?: readonly string[] | null;
  createdAt: Date;
}

export type NewApproval = Pick<ApprovalRecord, 'runId' | 'planVersion' | 'userId' | 'decision'> &
  Partial<Pick<ApprovalRecord, 'via' | 'need' | 'why' | 'digest' | 'policyHash' | 'policyRules' | 'policyGroups'>>;

/** Why a decision changed nothing; the agent turns each into a sentence for the person who clicked. */
export type { DecisionRefusalCode } from '../model/refusal.ts';
import type { DecisionRefusalCode } from '../model/refusal.ts';

export type DecisionResult<T = RunRecord> = { ok: true; run: RunRecord; value: T } | { ok: false; code: DecisionRefusalCode; run: RunRecord | undefined };

/**
 * A person's decision as one compare-and-set: the run must still be in one of `from` with
 * `planVersion` current (and the escalation still open); then every fact below is written together,
 * or nothing is.
 */
export interface DecisionInput {
  runId: string;
  /** The version the person decided on; null when the decision does not depend on one (a cancel). */
  planVersion: number | null;
  from: readonly RunStatus[];
  /** The run's new status; omitted: unchanged. */
  to?: RunStatus;
  approval?: Omit<NewApproval, 'runId' | 'planVersion'>;
  /** The escalation this click resolves; it must still be open. */
  escalation?: { id: string; action: EscalationAction; userId: string };
  /**
   * Open escalations of this kind on the run are resolved too (an approval answers a low-confidence
   * escalation); without a kind, every open escalation of the run (an Abort or a new plan ends every wait).
   */
  alsoResolve?: { kind?: EscalationRecord['kind']; action: EscalationAction; userId: string };
  /**
   * Steps moved with the decision, each only from its `from` statuses (a Retry or Skip of a failed step and
   * the steps it held back): a driver never sees the answer without the steps it moves. Only with `escalation`.
   */
  steps?: readonly StepMove[];
  event: RunEventInput;
}

/** One step's move in a decision (see DecisionInput.steps). */
export interface StepMove {
  planVersion: number;
  stepId: string;
  from: readonly StepStatus[];
  to: StepStatus;
  error?: StepErrorRecord | null;
}

/** An answer to one open question of the run, counted only while that question belongs to the current plan version. */
export interface AnswerInput {
  runId: string;
  /** The question answered (an Answer form names it); absent: the run's oldest open question. Answered already: nothing to answer. */
  questionId?: string | undefined;
  answer: string;
  userId: string;
  /** The request that carried the answer: one that already answered a question of this run answers nothing more. */
  requestId?: string | undefined;
  /** Run statuses in which a step's question may be answered, and in which the plan's own questions may. */
  stepFrom: readonly RunStatus[];
  planFrom: readonly RunStatus[];
  /** The run's status after the plan's own questions are answered (it is planned again). */
  planTo: RunStatus;
}

/** Plan versions and the decisions people take on them (approve, reject, cancel, answer), each one compare-and-set. */
export interface PlansPort {
  addPlanVersion(input: {
    runId: string;
    plan: Plan;
    authorKind: PlanVersionRecord['authorKind'];
    authorId: string;
    parentVersion: number | null;
    reason: Text | null;
    /**
     * Proposed at once: in the same write the version becomes the run's current one (with the run's
     * replan count, when given) and `plan-proposed` is recorded.
     */
    proposed?: { replans?: number };
  }): Promise<PlanVersionRecord>;
  getPlanVersion(runId: string, version: number): Promise<PlanVersionRecord | undefined>;
  listPlanVersions(runId: string): Promise<PlanVersionRecord[]>;

  recordApproval(input: NewApproval): Promise<ApprovalRecord>;
  listApprovals(runId: string): Promise<ApprovalRecord[]>;
  /** A person's decision, compare-and-set in one transaction (see DecisionInput). */
  decide(input: DecisionInput): Promise<DecisionResult>;
  /**
   * Answers the named open question (else the oldest open one) compare-and-set: the run is in `stepFrom` (a step's question,
   * whose waiting step then succeeds with the answer) or `planFrom` (the plan's questions; the run
   * moves to `planTo`), and the question belongs to the current version; answer, step and event together.
   */
  answer(input: AnswerInput): Promise<DecisionResult<QuestionRecord>>;
}
