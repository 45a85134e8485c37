import type { NewOwedMessage, OweAlong } from './outbox.ts';
import type { Text } from '../text/text.ts';
import type { Risk } from './tool.ts';
import type { RunRecord } from './runs.ts';

export type EscalationAction = 'retry' | 'skip' | 'replan' | 'abort';

/**
 * What a person may answer to an escalation, by kind: a failed step's Retry / Skip / Replan / Abort, a
 * low-confidence plan's Approve anyway / Modify / Reject. Each is stored as the EscalationAction it acts as
 * (approve: go ahead as Skip does; reject: end it). Try again is on failed replans' messages posted before
 * decision 052; it acts as Replan.
 */
export type EscalationAnswer = EscalationAction | 'approve' | 'modify' | 'reject' | 'try-again';

export interface EscalationRecord {
  id: string;
  runId: string;
  planVersion: number | null;
  stepId: string | null;
  kind:
    | 'evaluation-failed'
    /** A step ran but its check could not be made (the evaluator model was down or could not tell); see UNCHECKED. */
    | 'unchecked'
    | 'low-confidence'
    | 'uncertain-side-effect'
    | 'step-failed'
    | 'budget'
    | 'replan-failed'
    | 'not-approved'
    /** An undo step that writes failed (or may not have happened): a person undoes it by hand; nothing to choose. */
    | 'rollback-failed'
    /** The run's driver failed on an error no step outcome covers (a refused write, an exception): Retry or Abort. */
    | 'driver-failed';
  /** What happened, in words for a person (it may name who did what, or a setting). */
  message: Text;
  /** `expired`: a failed undo nobody took on within its time to live (no answer was given; `resolution` stays null). */
  status: 'open' | 'resolved' | 'expired';
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
  /** The step's sentence (its title), filled in when the request is shown (not stored with it). */
  stepTitle?: string | null;
  decidedBy: string | null;
  createdAt: Date;
  decidedAt: Date | null;
}

/**
 * One wait for a person, as a Reassign names it: an escalation or a question by its stored id (a
 * question answered and replaced by another is another wait), a Confirm by its step, a plan's approval
 * by its version.
 */
export type WaitRef =
  | { kind: 'approval'; runId: string; planVersion: number }
  | { kind: 'escalation'; escalationId: string }
  | { kind: 'question'; runId: string; questionId: string }
  | { kind: 'confirm'; runId: string; planVersion: number; stepId: string };

/** The four kinds of wait for a person (one model of them: src/agent/waits/wait.ts). */
export type WaitKind = 'approval' | 'question' | 'escalation' | 'confirm';

/**
 * Where a wait's message is in its run's thread, as the surface that posted it said: the newest post of it
 * (a reminder's copy replaces the first), so the board links it from any replica and after a restart.
 */
export interface WaitMessageRecord {
  runId: string;
  wait: WaitKind;
  /** Names the wait within its kind (waits/addressee.ts `waitKey`). */
  key: string;
  channel: string;
  ts: string;
  /** A link to the message, when the surface could make one. */
  permalink: string | null;
  postedAt: Date;
}

/** A wait's message as the surface posted it: where it is, so the agent stores it (`Agent.waitPosted`). */
export interface WaitPosted {
  runId: string;
  wait: WaitRef;
  channel: string;
  ts: string;
  permalink: string | null;
}

/** An open wait's link, for the board: the step it holds up (null: the run as a whole, e.g. a driver failure). */
export interface WaitLink {
  kind: WaitKind;
  planVersion: number | null;
  stepId: string | null;
  permalink: string;
}

/** What a surface tells of the wait messages it posts, and asks of them for a board (the agent, on the store). */
export interface WaitMessagesPort {
  posted(input: WaitPosted): Promise<void>;
  links(runId: string): Promise<WaitLink[]>;
}

/** A wait handed to someone: who now, who before (null: nobody by name), who handed it over. */
export interface Reassigned {
  runId: string;
  to: string;
  from: string | null;
  by: string;
}

/** An open wait a person may answer (App Home's "Waiting for you"); `handedBy` when it was handed to them. */
export interface WaitForPerson {
  run: RunRecord;
  wait: WaitRef;
  handedBy?: string;
  /** The link to its message, when the surface stored one. */
  permalink?: string;
}

/** Where a run waits for a person: escalations, questions (ask_human or the plan's own) and Confirms of late-bound targets. */
export interface HumanInputPort {
  /** With `owed`: in the same transaction, the escalation message the thread is owed (`payload` plus the escalation's id). */
  openEscalation(input: Pick<EscalationRecord, 'runId' | 'planVersion' | 'stepId' | 'kind' | 'message'>, owed?: OweAlong): Promise<EscalationRecord>;
  getEscalation(id: string): Promise<EscalationRecord | undefined>;
  listEscalations(runId: string): Promise<EscalationRecord[]>;
  /** Open escalations of one kind, of every run, oldest first (few are open at once: `escalations_open_idx`). */
  listOpenEscalations(input: { kind: EscalationRecord['kind']; limit: number }): Promise<EscalationRecord[]>;
  /** open → resolved once; false if it was already resolved. */
  resolveEscalation(input: { id: string; action: EscalationAction; userId: string }): Promise<boolean>;
  /** open → expired once (nobody answered within its time to live; no action is recorded); false if it was no longer open. */
  expireEscalation(id: string): Promise<boolean>;

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

  /** The wait's message was posted (again): it replaces the one stored for that wait. */
  recordWaitMessage(input: Omit<WaitMessageRecord, 'postedAt'>): Promise<void>;
  listWaitMessages(runId: string): Promise<WaitMessageRecord[]>;
}
