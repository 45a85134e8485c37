/**
 * The one reader of waits for a person (wait.ts): every open approval, question, escalation and Confirm
 * of a run as a `Wait`, with who may answer it, whom it was handed to, where its message is, and when it
 * reminds and expires. Reminders, expiry, Reassign, "Waiting for you" and the board's links all read it.
 */
import type { AgentContext } from '../context.ts';
import type { RunRecord, WaitMessageRecord } from '../ports/run-store.ts';
import type { RunEvent } from '../model/run-events.ts';
import { currentAddressee } from './addressee.ts';
import { answerersOf } from './answerers.ts';
import { DEFAULT_HOUSEKEEPING, placeOf, refOf, waitKey, type Wait, type WaitSubject } from './wait.ts';

/** The open waits of one run, oldest kind first: its plan's approval, questions, escalations, Confirms. */
export async function openWaits(ctx: AgentContext, run: RunRecord): Promise<Wait[]> {
  const opened = await openSubjects(ctx, run);
  if (opened.length === 0) return [];
  const [events, messages] = await Promise.all([ctx.store.listEvents(run.id), ctx.store.listWaitMessages(run.id)]);
  const { remindAfterS, waitTtlS } = { ...DEFAULT_HOUSEKEEPING, ...ctx.config.settings.housekeeping };
  return opened.map(({ subject, openedAt }) => {
    const key = waitKey(subject);
    const message = messageOf(messages, subject.kind, key);
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
      addressee: addresseeOf(events, subject.kind, key),
      message,
      state: message ? 'delivered' : 'owed',
      ...answerersOf(ctx, run, subject),
    };
  });
}

/**
 * Which rows are open waits: a plan version the run awaits approval of; a question of the current version
 * not answered; an escalation not resolved; a pending Confirm of the current version (or of a rollback).
 */
async function openSubjects(ctx: AgentContext, run: RunRecord): Promise<{ subject: WaitSubject; openedAt: Date }[]> {
  const [questions, escalations, confirmations, version] = await Promise.all([
    ctx.store.listQuestions(run.id),
    ctx.store.listEscalations(run.id),
    ctx.store.listConfirmations(run.id),
    run.status === 'awaiting-approval' && run.currentPlanVersion !== null ? ctx.store.getPlanVersion(run.id, run.currentPlanVersion) : undefined,
  ]);
  const current = (planVersion: number | null) => planVersion === run.currentPlanVersion;
  return [
    ...(version ? [{ subject: { kind: 'approval' as const, planVersion: version.version }, openedAt: version.createdAt }] : []),
    ...questions
      .filter((q) => q.answer === null && current(q.planVersion))
      .map((question) => ({ subject: { kind: 'question' as const, question }, openedAt: question.createdAt })),
    ...escalations
      .filter((e) => e.status === 'open')
      .map((escalation) => ({ subject: { kind: 'escalation' as const, escalation }, openedAt: escalation.createdAt })),
    ...confirmations
      .filter((c) => c.status === 'pending' && (run.status === 'rolling-back' || current(c.planVersion)))
      .map((confirmation) => ({ subject: { kind: 'confirm' as const, confirmation }, openedAt: confirmation.createdAt })),
  ];
}

function messageOf(messages: readonly WaitMessageRecord[], kind: WaitSubject['kind'], key: string): WaitMessageRecord | undefined {
  return messages.find((message) => message.wait === kind && message.key === key);
}

function addresseeOf(events: readonly RunEvent[], kind: WaitSubject['kind'], key: string): Wait['addressee'] {
  return currentAddressee(events, kind, key);
}
