/**
 * One model of a wait for a person (decision 037). A run waits for people in four kinds of way — a plan's
 * approval, a question (ask_human or the plan's own), an escalation, a Confirm of a late-bound target —
 * each stored in its own row, and every consumer (reminders, expiry, Reassign, App Home's "Waiting for
 * you", the board's links) reads them as one `Wait` through `openWaits` (open-waits.ts).
 *
 * The lifecycle: **open** (the row is stored) → **owed** (its message is owed to the thread, in the same
 * transaction) → **delivered** (the surface posted it and said where: a wait message is stored) →
 * **answered** | **expired** | **cancelled** (the row is decided, the plan expired, or the run ended or
 * moved to another version) → the run goes on. Each state is a value derived from what is stored
 * (wait-state.ts `stateOf`); `openWaits` reads the open ones, `waitOf` (wait-of.ts) one wait in any state.
 */
import type { HousekeepingSettings } from '../context.ts';
import type { Refusal } from '../model/refusal.ts';
import type { Text } from '../text/text.ts';
import type { ConfirmationRecord, EscalationRecord, QuestionRecord, RunRecord, WaitKind, WaitMessageRecord, WaitRef } from '../ports/run-store.ts';

export type { WaitKind };

/** A wait that can still be answered: its message owed to the thread, or posted there. */
export type OpenWaitState = 'owed' | 'delivered';
/**
 * How a wait ended. `answered`: a person decided it (or, for a plan, approved or rejected it). `expired`: its
 * time to live ran out (a plan not approved; a Confirm not given; a failed undo nobody took on). `cancelled`: it stopped waiting because the
 * run moved on without an answer to it — the run ended, another plan version replaced its own, or another
 * answer (an Abort, a new plan, the plan's approval) closed it with the rest.
 */
export type ClosedWaitState = 'answered' | 'expired' | 'cancelled';
export type WaitState = OpenWaitState | ClosedWaitState;

/** What the wait is about: the stored row it was opened as (an approval is the plan version itself). */
export type WaitSubject =
  | { kind: 'approval'; planVersion: number }
  | { kind: 'escalation'; escalation: EscalationRecord }
  | { kind: 'question'; question: QuestionRecord }
  | { kind: 'confirm'; confirmation: ConfirmationRecord };

/** Why a person may not answer a wait: the check's own code and words (under TANDEM_POLICY, the rule and who may). */
export type AnswerRefusal = Refusal<string, Text>;
/** Whether a person may answer a wait, and if not, the refusal the answer itself would give. */
export type AnswerCheck = { ok: true } | { ok: false; error: AnswerRefusal };

/** Who may answer a wait, asked the way the answer itself asks (answerers.ts). */
export interface Answerers {
  /** Whether this person may answer it on their own standing (not because it was handed to them), and if not, why. */
  mayAnswer(userId: string): Promise<AnswerCheck>;
  /** A question handed to someone may be answered by them; other kinds only by who may answer them anyway. */
  addresseeMayAnswer: boolean;
}

export interface Wait extends Answerers {
  kind: WaitKind;
  subject: WaitSubject;
  /** Names the wait within its kind: in `wait-reassigned` events, reminders and stored messages. */
  key: string;
  /** How a button or a Reassign names it. */
  ref: WaitRef;
  run: RunRecord;
  planVersion: number | null;
  /** The step that waits on it; null for a plan's approval or question, and a run-level escalation. */
  stepId: string | null;
  openedAt: Date;
  /** When its one reminder is due, and when it expires (HousekeepingSettings). */
  remindAt: Date;
  expiresAt: Date;
  /** Handed to someone by a Reassign: to whom, and who handed it. */
  addressee: { to: string; by: string } | undefined;
  /** Where its message was last posted, once it was. */
  message: WaitMessageRecord | undefined;
  /** Where it is in its lifecycle (wait-state.ts): owed or delivered while open; answered, expired or cancelled once closed. */
  state: WaitState;
}

export const DEFAULT_HOUSEKEEPING: HousekeepingSettings = { remindAfterS: 1800, waitTtlS: 86_400 };

/** What names one wait within its kind. */
export function waitKey(subject: WaitSubject): string {
  if (subject.kind === 'approval') return `v${subject.planVersion}`;
  if (subject.kind === 'escalation') return subject.escalation.id;
  if (subject.kind === 'question') return subject.question.id;
  return `v${subject.confirmation.planVersion}/${subject.confirmation.stepId}`;
}

/** The key of the wait a button or Reassign names, without reading it (an escalation's id, a Confirm's step). */
export function keyOfRef(ref: WaitRef): string {
  if (ref.kind === 'approval') return `v${ref.planVersion}`;
  if (ref.kind === 'escalation') return ref.escalationId;
  if (ref.kind === 'question') return ref.questionId;
  return `v${ref.planVersion}/${ref.stepId}`;
}

export function refOf(run: RunRecord, subject: WaitSubject): WaitRef {
  if (subject.kind === 'approval') return { kind: 'approval', runId: run.id, planVersion: subject.planVersion };
  if (subject.kind === 'escalation') return { kind: 'escalation', escalationId: subject.escalation.id };
  if (subject.kind === 'question') return { kind: 'question', runId: run.id, questionId: subject.question.id };
  return { kind: 'confirm', runId: run.id, planVersion: subject.confirmation.planVersion, stepId: subject.confirmation.stepId };
}

/** The version and step a wait holds up. */
export function placeOf(subject: WaitSubject): { planVersion: number | null; stepId: string | null } {
  if (subject.kind === 'approval') return { planVersion: subject.planVersion, stepId: null };
  if (subject.kind === 'escalation') return { planVersion: subject.escalation.planVersion, stepId: subject.escalation.stepId };
  if (subject.kind === 'question') return { planVersion: subject.question.planVersion, stepId: subject.question.stepId };
  return { planVersion: subject.confirmation.planVersion, stepId: subject.confirmation.stepId };
}

/** What a wait has come to at `now`: nothing yet, its one reminder, or its expiry. */
export function stageAt(wait: Pick<Wait, 'remindAt' | 'expiresAt'>, now: Date): 'none' | 'remind' | 'expire' {
  if (now.getTime() >= wait.expiresAt.getTime()) return 'expire';
  return now.getTime() >= wait.remindAt.getTime() ? 'remind' : 'none';
}
