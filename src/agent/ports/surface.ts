import type { DiffLine } from '../model/plan/plan-diff.ts';
import type { Plan } from '../model/plan/plan.ts';
import type { Text } from '../text/text.ts';
import type { ConfirmationRecord, EscalationAnswer, EscalationRecord, ModelUsage, RunRecord, StepStatus } from './run-store.ts';
import type { Risk } from './tool.ts';
import type { ProgressPhase, RunVerdict } from '../model/run-outcome.ts';
import type { StepResult } from '../model/step-results.ts';

export interface BoardStep {
  stepId: string;
  title: string;
  tool: string;
  kind: 'forward' | 'rollback';
  status: StepStatus;
  elapsedMs: number | null;
  /** Links to what the step read or made (html_url of a PR, a workflow run…). */
  url: string | null;
  /** What the link is ("acme/api#42"), for its label. */
  urlLabel?: string | null;
  note: string | null;
  /** Succeeded, but the check of its result could not be made: not shown as a pass. */
  unchecked?: boolean;
  /** A waiting step waits for an approver's Confirm or for an answer; a failed one of a live run for a person's decision. */
  waitingFor?: 'confirm' | 'answer' | 'decision' | null;
}

export interface BoardState {
  runId: string;
  goal: string;
  planVersion: number;
  runStatus: RunRecord['status'];
  steps: BoardStep[];
  startedAt: Date;
  elapsedMs: number;
  /** The run's true outcome (model/run-outcome.ts): the title, the cards and the summary say the same. */
  outcome?: RunVerdict;
  /** What a run not yet ended is doing (running, checking, waiting on whom). */
  phase?: ProgressPhase;
  /** A newer plan version replaced the one drawn. */
  replacedBy?: number | null;
  /** Who asked: a step waiting for an answer waits for them. */
  requester?: string;
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
  outcome: 'succeeded' | 'failed' | 'aborted' | 'cancelled' | 'rejected' | 'expired';
  goal: string;
  reason: Text | null;
  changes: { title: string; url: string | null }[];
  rolledBack: { title: string; status: StepStatus }[];
  durationMs: number;
  tokens: { input: number; output: number };
  costUsd: number;
  /** Usage per role and model, when more than one model worked on the run. */
  models?: ModelUsage[];
  /** The true outcome, from what happened to the steps and their checks (absent from summaries stored before it). */
  verdict?: RunVerdict;
  /** What the person asked for: reads' answers and changes in the past tense, with their links. */
  results?: StepResult[];
  /** The run's plan came from a runbook: saving it as one again makes no sense. */
  fromRunbook?: boolean;
  /** Some step of the run started (false: it ended before any did, e.g. cancelled while waiting for approval). */
  ran?: boolean;
  /** Some step asked for a Confirm: every copy of its message still offering Confirm and Abort loses them at the end. */
  confirmsAsked?: boolean;
  /**
   * Owed before migration 0016: a run that ended `rejected` because its plan expired unapproved. Its outcome now
   * says `expired`; a summary owed before still reads as expired.
   */
  expired?: boolean;
  /** `provider:model` of the fallback planner when it wrote a plan version of this run, and why it was asked. */
  fallbackPlanner?: { author: string; reason: string } | null;
}

/**
 * What an escalation message says and offers, decided by the agent from the store (escalation.ts): the
 * answers that can work for its kind, and in plain words what happened, what already changed and what
 * waits. No ids, settings or parser errors: those stay in the stored message and the logs.
 */
export interface EscalationOffer {
  /** The answers that can work, in the order they are shown; empty: nothing to choose (it only informs). */
  answers: EscalationAnswer[];
  /** What happened, one sentence. */
  happened: Text;
  /** The step it is about, by its title. */
  stepTitle: string | null;
  /** Titles of the steps that already made a change. */
  changed: string[];
  /**
   * Titles of other steps that may or may not have taken effect: uncertain, or skipped by a person while uncertain
   * (model/step-change.ts). Absent from offers made before it was told.
   */
  mayHaveChanged?: string[];
  /** Titles of the steps that wait on this answer. */
  onHold: string[];
  /**
   * Titles of the steps a Skip also skips: what depends on a step that has no result to accept (decision 053).
   * Absent from offers made before it was told.
   */
  skipAlsoSkips?: string[];
  /** Abort also undoes what succeeded (the plan has rollback steps for it). */
  abortRollsBack: boolean;
  /**
   * A low-confidence plan: the version its Modify button opens, and its content digest, which "Approve anyway"
   * binds to as the plan message's Approve does (absent from offers made before it was carried).
   */
  plan?: { version: number; digest?: string };
  /** Said above the rest when the escalation is posted again (a reminder). */
  note?: string;
  /** Posted again after a Reassign: whom it waits on now. */
  addressee?: WaitAddressee;
}

/** Whom a wait was handed to (Reassign), and by whom: its message, posted again as a reminder, says so. */
export interface WaitAddressee {
  to: string;
  by: string;
}

/** What a question's message names besides its words: its stored record (for Reassign) and, on a reminder, whom it was handed to. */
export interface AskedQuestion {
  questionId?: string;
  addressee?: WaitAddressee;
}

/** An escalation closed by another answer, and how its message is found in the conversation. */
export interface ClosedEscalation {
  escalation: EscalationRecord;
  /** The step it was about, by its title. */
  stepTitle: string | null;
  key: string;
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
  askRequester(run: RunRecord, questions: string[], asked?: AskedQuestion, delivery?: Delivery): Promise<void>;
  reportProgress(run: RunRecord, board: BoardState): Promise<void>;
  escalate(run: RunRecord, escalation: EscalationRecord, offer: EscalationOffer, delivery?: Delivery): Promise<void>;
  /** ask_human: a step waits for an answer in the conversation. */
  ask(run: RunRecord, stepId: string, question: string, delivery?: Delivery, asked?: AskedQuestion): Promise<void>;
  /** A write's target was filled from a person's or a model's words: show the values, offer Confirm and Abort. */
  confirmTarget(run: RunRecord, confirmation: ConfirmationRecord, delivery?: Delivery, addressee?: WaitAddressee): Promise<void>;
  notify(run: RunRecord, text: Text): Promise<void>;
  /** Under a policy file, a click counted but the version still waits: the plan message shows each step's progress now. */
  approvalProgress?(run: RunRecord, planVersion: number, lines: readonly string[]): Promise<void>;
  /**
   * Escalations another answer closed (an Abort, a new plan): each message loses its buttons and says
   * why (`closedBy`, e.g. "Aborted by @ana"). `key` is the delivery key the message was posted with.
   */
  escalationsClosed?(run: RunRecord, closed: readonly ClosedEscalation[], closedBy: Text): Promise<void>;
  /**
   * A Confirm nobody answered in time: every copy of its message loses Confirm and Abort at once and says `why`,
   * while the rest of the run goes on (its end would sweep them, but a run can wait on other things for days).
   */
  confirmExpired?(run: RunRecord, confirmation: ConfirmationRecord, why: Text): Promise<void>;
  /**
   * An escalation nobody took on in time (a failed undo): every copy of its message loses its buttons (Reassign) and
   * says `why`; the run has already ended, so the run's end will not sweep them.
   */
  escalationExpired?(run: RunRecord, escalation: EscalationRecord, why: Text): Promise<void>;
  /** The planner's model provider is down (and any fallback too): say so, and offer to plan the same task again. */
  plannerUnavailable?(run: RunRecord, reason: Text): Promise<void>;
  finish(summary: RunSummary, delivery?: Delivery): Promise<void>;
  /** A link to the run's conversation (Slack: the thread's permalink), for attribution lines; undefined when there is none. */
  threadLink?(run: RunRecord): Promise<string | undefined>;
}

/** The run's thread as the agent writes to it. */
export interface ThreadSurfaces {
  /** Best-effort: a surface that throws is logged and the run goes on. */
  surface: Surface;
  /** The same surface without the safety net, for owed messages: a delivery that fails stays owed and is tried again. */
  deliverySurface: Surface;
}
