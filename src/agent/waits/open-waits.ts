/**
 * The one reader of waits for a person (wait.ts): every open approval, question, escalation and Confirm
 * of a run as a `Wait`, with who may answer it, whom it was handed to, where its message is, and when it
 * reminds and expires. Reminders, expiry, Reassign, "Waiting for you" and the board's links all read it.
 * Open is what `stateOf` (wait-state.ts) says, the same rule `waitOf` uses for one wait in any state.
 */
import type { AgentContext } from '../context.ts';
import type { RunRecord, WaitMessageRecord } from '../ports/run-store.ts';
import type { RunEvent } from '../model/run-events.ts';
import { currentAddressee } from './addressee.ts';
import { answerersOf } from './answerers.ts';
import { DEFAULT_HOUSEKEEPING, placeOf, refOf, waitKey, type Wait, type WaitSubject } from './wait.ts';
import { isOpenState, stateOf } from './wait-state.ts';

/** A wait's row and when it opened. */
export interface Opened {
  subject: WaitSubject;
  openedAt: Date;
}

/** The open waits of one run, oldest kind first: its plan's approval, questions, escalations, Confirms. */
export async function openWaits(ctx: AgentContext, run: RunRecord): Promise<Wait[]> {
  const candidates = await candidateSubjects(ctx, run);
  if (candidates.length === 0) return [];
  const [events, messages] = await Promise.all([ctx.store.listEvents(run.id), ctx.store.listWaitMessages(run.id)]);
  return candidates.map((opened) => toWait(ctx, run, opened, events, messages)).filter((wait) => isOpenState(wait.state));
}

/** One row as a Wait, its state derived from what is stored (wait-state.ts). */
export function toWait(
  ctx: AgentContext,
  run: RunRecord,
  { subject, openedAt }: Opened,
  events: readonly RunEvent[],
  messages: readonly WaitMessageRecord[],
): Wait {
  const { remindAfterS, waitTtlS } = { ...DEFAULT_HOUSEKEEPING, ...ctx.config.settings.housekeeping };
  const key = waitKey(subject);
  const message = messages.find((m) => m.wait === subject.kind && m.key === key);
  return {
    kind: subject.kind,
    subject,
    key,
    ref: refOf(run, subject),
    run,
    ...placeOf(subject),
    openedAt,
    remindAt: new Date(openedAt.getTime() + remindAfterS * 1000),
    expiresAt: new Date(openedAt.getTime() + waitTtlS * 1000),
    addressee: currentAddressee(events, subject.kind, key),
    message,
    state: stateOf(subject, { run, events, delivered: message !== undefined }),
    ...answerersOf(ctx, run, subject),
  };
}

/**
 * The rows that may be open waits, read cheaply: the current version only while the run awaits its approval,
 * and every question, escalation and Confirm of the run (stateOf then says which are open).
 */
async function candidateSubjects(ctx: AgentContext, run: RunRecord): Promise<Opened[]> {
  const [questions, escalations, confirmations, version] = await Promise.all([
    ctx.store.listQuestions(run.id),
    ctx.store.listEscalations(run.id),
    ctx.store.listConfirmations(run.id),
    run.status === 'awaiting-approval' && run.currentPlanVersion !== null ? ctx.store.getPlanVersion(run.id, run.currentPlanVersion) : undefined,
  ]);
  // Rows already decided are left out here: their state is closed whatever the events say.
  return [
    ...(version ? [{ subject: { kind: 'approval' as const, planVersion: version.version }, openedAt: version.createdAt }] : []),
    ...questions.filter((q) => q.answer === null).map((question) => ({ subject: { kind: 'question' as const, question }, openedAt: question.createdAt })),
    ...escalations
      .filter((e) => e.status === 'open')
      .map((escalation) => ({ subject: { kind: 'escalation' as const, escalation }, openedAt: escalation.createdAt })),
    ...confirmations
      .filter((c) => c.status === 'pending')
      .map((confirmation) => ({ subject: { kind: 'confirm' as const, confirmation }, openedAt: confirmation.createdAt })),
  ];
}
