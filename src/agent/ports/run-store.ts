import type { Plan, PlanAuthorKind } from '../plan.ts';
import type { RunEvent, RunEventArgs, RunEventInput } from '../run-events.ts';
import type { Risk } from './tool.ts';

export type RunStatus =
  | 'planning'
  | 'awaiting-approval'
  | 'awaiting-answer' // the plan asked the requester questions
  | 'executing'
  | 'paused' // an open escalation or ask_human question holds the run
  | 'rolling-back'
  | 'succeeded'
  | 'failed'
  | 'aborted'
  | 'cancelled'
  | 'rejected';

export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'aborted', 'cancelled', 'rejected'];

export type StepStatus =
  | 'pending'
  | 'running'
  | 'waiting' // ask_human: paused until someone answers
  | 'succeeded'
  | 'failed'
  | 'skipped'
  | 'cancelled'
  | 'uncertain'; // a write that may have happened; a person decides

export type StepKind = 'forward' | 'rollback';

/** Where a run talks to people: a Slack channel and thread, or a test surface's equivalent. */
export interface Conversation {
  channel: string;
  threadTs: string;
}

export interface RunRecord {
  id: string;
  task: string;
  requester: string;
  conversation: Conversation;
  origin: 'mention' | 'command' | 'schedule' | 'cli';
  status: RunStatus;
  currentPlanVersion: number | null;
  replans: number;
  /** The surface's handle of the status board message (Slack `ts`). */
  boardRef: string | null;
  summary: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

export interface PlanVersionRecord {
  runId: string;
  version: number;
  plan: Plan;
  authorKind: PlanAuthorKind;
  /** Slack user `U…`, the model id, or the runbook name. */
  authorId: string;
  parentVersion: number | null;
  reason: string | null;
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
  createdAt: Date;
}

export type NewApproval = Pick<ApprovalRecord, 'runId' | 'planVersion' | 'userId' | 'decision'> & Partial<Pick<ApprovalRecord, 'via' | 'need' | 'why'>>;

/** Why a decision changed nothing; the agent turns each into a sentence for the person who clicked. */
export type DecisionRefusalCode = 'run-missing' | 'plan-changed' | 'not-waiting' | 'escalation-resolved' | 'nothing-to-answer';

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
  /** Open escalations of this kind on the run are resolved too (an approval answers a low-confidence escalation). */
  alsoResolve?: { kind: EscalationRecord['kind']; action: EscalationAction; userId: string };
  event: RunEventInput;
}

/** An answer to the run's oldest open question, counted only while that question belongs to the current plan version. */
export interface AnswerInput {
  runId: string;
  answer: string;
  userId: string;
  /** Run statuses in which a step's question may be answered, and in which the plan's own questions may. */
  stepFrom: readonly RunStatus[];
  planFrom: readonly RunStatus[];
  /** The run's status after the plan's own questions are answered (it is planned again). */
  planTo: RunStatus;
}

export interface StepRecord {
  runId: string;
  planVersion: number;
  stepId: string;
  kind: StepKind;
  title: string;
  tool: string;
  risk: Risk;
  dependsOn: string[];
  /** The args as the plan says them, before references are filled. */
  plannedArgs: Record<string, unknown>;
  status: StepStatus;
  attempt: number;
  output: Record<string, unknown> | null;
  error: StepErrorRecord | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  leaseOwner: string | null;
  leaseUntil: Date | null;
}

export interface StepErrorRecord {
  message: string;
  transient?: boolean;
  uncertain?: boolean;
  code?: string;
  url?: string;
}

export interface StepAttemptRecord {
  runId: string;
  planVersion: number;
  stepId: string;
  attempt: number;
  /** The args actually sent to the tool, references filled. */
  executedArgs: Record<string, unknown>;
  idempotencyKey: string;
  status: 'running' | 'succeeded' | 'failed' | 'uncertain' | 'cancelled';
  output: Record<string, unknown> | null;
  error: StepErrorRecord | null;
  startedAt: Date;
  finishedAt: Date | null;
}

export type EscalationAction = 'retry' | 'skip' | 'replan' | 'abort';

export interface EscalationRecord {
  id: string;
  runId: string;
  planVersion: number | null;
  stepId: string | null;
  kind: 'evaluation-failed' | 'low-confidence' | 'uncertain-side-effect' | 'step-failed' | 'budget' | 'replan-failed' | 'not-approved';
  message: string;
  status: 'open' | 'resolved';
  resolution: EscalationAction | null;
  resolvedBy: string | null;
  createdAt: Date;
  resolvedAt: Date | null;
}

export interface QuestionRecord {
  id: string;
  runId: string;
  /** null: the plan itself asked (a plan made only of questions). */
  stepId: string | null;
  planVersion: number | null;
  question: string;
  answer: string | null;
  answeredBy: string | null;
  createdAt: Date;
  answeredAt: Date | null;
}

/** A Confirm of a write's target filled at run time from a person's answer or a model's text. */
export interface ConfirmationRecord {
  runId: string;
  planVersion: number;
  stepId: string;
  tool: string;
  risk: Risk;
  /** The step's target args exactly as they will be executed, references filled. */
  targets: Record<string, unknown>;
  /** Which of them came from a person's or a model's words. */
  lateBound: string[];
  status: 'pending' | 'confirmed' | 'aborted';
  decidedBy: string | null;
  createdAt: Date;
  decidedAt: Date | null;
}

export interface UsageRecord {
  runId: string | null;
  role: string;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface ModelUsage {
  role: string;
  /** `provider:model` */
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** A message a run owes its thread; `id` names it (the same message recorded twice is one). */
export interface NewOwedMessage {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
}

/** A message owed along with a record the store creates; its id is derived from the record's. */
export interface OweAlong {
  payload: Record<string, unknown>;
  owner: string;
  leaseMs: number;
}

export interface OwedMessage extends NewOwedMessage {
  runId: string;
  /** Deliveries begun, this one included: above 1, an earlier one may have reached the thread. */
  attempts: number;
  createdAt: Date;
}

export interface NewStep {
  stepId: string;
  kind: StepKind;
  title: string;
  tool: string;
  risk: Risk;
  dependsOn: string[];
  plannedArgs: Record<string, unknown>;
}

/**
 * Everything the agent remembers. Each method is one durable fact, committed before it returns,
 * so the executor can store a transition before the action that depends on it.
 */
export interface RunStore {
  /** `requestId` names the request that started the run (at most one run per request). */
  createRun(input: { task: string; requester: string; conversation: Conversation; origin: RunRecord['origin']; requestId?: string }): Promise<RunRecord>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  /** The run a request started, when it started one (a request handled again after a crash finds it). */
  findRunByRequest(requestId: string): Promise<RunRecord | undefined>;
  findRunByConversation(conversation: Conversation): Promise<RunRecord | undefined>;
  updateRun(
    runId: string,
    patch: Partial<Pick<RunRecord, 'status' | 'currentPlanVersion' | 'replans' | 'boardRef' | 'summary' | 'finishedAt'>>,
  ): Promise<RunRecord>;
  /** Moves a run from one status to another only if it is still in `from`; false if someone else moved it. */
  transitionRun(runId: string, from: readonly RunStatus[], to: RunStatus): Promise<boolean>;
  listRuns(filter: { limit: number; requester?: string; channel?: string; statuses?: readonly RunStatus[] }): Promise<RunRecord[]>;
  /**
   * Ends a run in one transaction: moves it from `from` to its final status with its summary and
   * finish time, appends `event`, and records what it owes its thread (held by `owner` for `leaseMs`).
   * Undefined when the run had already left `from`.
   */
  finishRun(input: {
    runId: string;
    from: readonly RunStatus[];
    status: RunStatus;
    summary: Record<string, unknown>;
    finishedAt: Date;
    event: RunEventInput;
    owe: readonly NewOwedMessage[];
    owner: string;
    leaseMs: number;
  }): Promise<RunRecord | undefined>;

  /** Records messages a run owes its thread, held by `owner` for `leaseMs` so it delivers them first. */
  owe(input: { runId: string; owe: readonly NewOwedMessage[]; owner: string; leaseMs: number }): Promise<void>;
  /**
   * Takes pending owed messages for `owner` (each delivery begun counts an attempt): of `runId` when
   * given (ones `owner` holds or nobody does), else any whose holder's lease ran out; `all` takes every pending one.
   */
  claimOwed(input: { owner: string; leaseMs: number; all: boolean; runId?: string; limit: number }): Promise<OwedMessage[]>;
  markOwedSent(id: string): Promise<void>;
  /** A delivery failed: pending again after `retryInMs`, for whichever replica comes first. */
  deferOwed(input: { id: string; retryInMs: number }): Promise<void>;

  /**
   * Run leases: one replica drives a run, and writes its status board, at a time. Takes the lease
   * when nobody holds it, its holder stopped renewing it, or it is already `owner`'s; false otherwise.
   */
  claimRunLease(input: { runId: string; owner: string; leaseMs: number }): Promise<boolean>;
  /**
   * Takes up to `limit` runs in `statuses` whose lease is already `owner`'s, ran out, or was released, or
   * that were never leased and have not changed for `graceMs` (a run just created is left to its creator);
   * concurrent callers get different runs.
   * `skipLocked`: rows locked by another transaction are passed over instead of waited for.
   */
  adoptRuns(input: {
    owner: string;
    leaseMs: number;
    statuses: readonly RunStatus[];
    limit: number;
    graceMs: number;
    skipLocked: boolean;
  }): Promise<RunRecord[]>;
  /** A heartbeat: extends `owner`'s leases on these runs and on their running steps; returns the runs `owner` still holds. */
  renewLeases(input: { owner: string; leaseMs: number; runIds: readonly string[] }): Promise<string[]>;
  /** Lets peers take (and adopt) the run at once (a no-op unless `owner` holds it). */
  releaseRunLease(input: { runId: string; owner: string }): Promise<void>;

  addPlanVersion(input: {
    runId: string;
    plan: Plan;
    authorKind: PlanVersionRecord['authorKind'];
    authorId: string;
    parentVersion: number | null;
    reason: string | null;
  }): Promise<PlanVersionRecord>;
  getPlanVersion(runId: string, version: number): Promise<PlanVersionRecord | undefined>;
  listPlanVersions(runId: string): Promise<PlanVersionRecord[]>;

  recordApproval(input: NewApproval): Promise<ApprovalRecord>;
  listApprovals(runId: string): Promise<ApprovalRecord[]>;
  /** A person's decision, compare-and-set in one transaction (see DecisionInput). */
  decide(input: DecisionInput): Promise<DecisionResult>;
  /**
   * Answers the oldest open question compare-and-set: the run is in `stepFrom` (a step's question,
   * whose waiting step then succeeds with the answer) or `planFrom` (the plan's questions; the run
   * moves to `planTo`), and the question belongs to the current version; answer, step and event together.
   */
  answer(input: AnswerInput): Promise<DecisionResult<QuestionRecord>>;

  /** Inserts steps as `pending`; steps that already exist are left as they are. */
  createSteps(runId: string, planVersion: number, steps: NewStep[]): Promise<void>;
  listSteps(runId: string, planVersion?: number): Promise<StepRecord[]>;
  /**
   * pending → running, attempt + 1, an attempt row with the executed args. Exactly one caller wins;
   * the others get undefined.
   */
  claimStep(input: {
    runId: string;
    planVersion: number;
    stepId: string;
    owner: string;
    leaseMs: number;
    executedArgs: Record<string, unknown>;
  }): Promise<StepRecord | undefined>;
  /** Ends the running attempt `attempt`; false if the step is no longer that attempt (someone else moved it). */
  finishStep(input: {
    runId: string;
    planVersion: number;
    stepId: string;
    attempt: number;
    status: 'succeeded' | 'failed' | 'uncertain' | 'cancelled' | 'waiting';
    output?: Record<string, unknown> | null;
    error?: StepErrorRecord | null;
  }): Promise<boolean>;
  /** For steps not running: skip, cancel, reset to pending (retry), or settle a waiting / uncertain step. */
  setStepStatus(input: {
    runId: string;
    planVersion: number;
    stepId: string;
    from: readonly StepStatus[];
    to: StepStatus;
    output?: Record<string, unknown> | null;
    error?: StepErrorRecord | null;
  }): Promise<boolean>;
  listAttempts(runId: string): Promise<StepAttemptRecord[]>;

  /** Only a known event type with its payload (see run-events.ts). */
  appendEvent(runId: string, ...event: RunEventArgs): Promise<RunEvent>;
  /** Stored rows parsed by their schemas; a row this version does not know is an `unknown` event, never an error. */
  listEvents(runId: string): Promise<RunEvent[]>;

  /** With `owed`: in the same transaction, the escalation message the thread is owed (`payload` plus the escalation's id). */
  openEscalation(input: Pick<EscalationRecord, 'runId' | 'planVersion' | 'stepId' | 'kind' | 'message'>, owed?: OweAlong): Promise<EscalationRecord>;
  getEscalation(id: string): Promise<EscalationRecord | undefined>;
  listEscalations(runId: string): Promise<EscalationRecord[]>;
  /** open → resolved once; false if it was already resolved. */
  resolveEscalation(input: { id: string; action: EscalationAction; userId: string }): Promise<boolean>;

  /** With `owed`: in the same transaction, the question the thread is owed (`payload` plus the question's id). */
  openQuestion(input: Pick<QuestionRecord, 'runId' | 'stepId' | 'planVersion' | 'question'>, owed?: OweAlong): Promise<QuestionRecord>;
  listQuestions(runId: string): Promise<QuestionRecord[]>;
  /** Answers the oldest open question of the run; undefined if none was open. */
  answerQuestion(input: { runId: string; answer: string; userId: string }): Promise<QuestionRecord | undefined>;

  /**
   * The step stops for a Confirm: pending → waiting, a pending confirmation of `targets` (one decided
   * earlier for other values is replaced) and the request the run now owes its thread (`owe`, held
   * by `owner` for `leaseMs`), in one transaction; undefined if the step was not pending.
   */
  requestConfirmation(
    input: Pick<ConfirmationRecord, 'runId' | 'planVersion' | 'stepId' | 'tool' | 'risk' | 'targets' | 'lateBound'> & {
      owe: NewOwedMessage;
      owner: string;
      leaseMs: number;
    },
  ): Promise<ConfirmationRecord | undefined>;
  /**
   * Confirms or aborts a pending confirmation in one transaction, only while `planVersion` is the
   * run's current version and the run is paused or executing; a confirm moves the step waiting →
   * pending in the same transaction. undefined: nothing changed.
   */
  decideConfirmation(input: {
    runId: string;
    planVersion: number;
    stepId: string;
    userId: string;
    decision: 'confirmed' | 'aborted';
  }): Promise<ConfirmationRecord | undefined>;
  listConfirmations(runId: string): Promise<ConfirmationRecord[]>;

  recordUsage(usage: UsageRecord): Promise<void>;
  usageTotals(runId: string): Promise<{ inputTokens: number; outputTokens: number; costUsd: number }>;
  /** The run's usage per role and `provider:model`, largest cost first. */
  usageByModel(runId: string): Promise<ModelUsage[]>;

  /**
   * True exactly once per (run, kind, key) across every replica sharing the store: housekeeping
   * sends a reminder or re-ping only when it gets true.
   */
  claimReminder(input: { runId: string; kind: string; key: string }): Promise<boolean>;
}
