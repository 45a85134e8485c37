/**
 * Where a wait for a person is in its one lifecycle (wait.ts): open → owed → delivered → answered | expired |
 * cancelled. Every state is a value derived from what is stored — the kind's own row, the run, its event log and
 * the stored wait message — by this one function, so no consumer infers "closed" from which column is null and
 * two readers cannot disagree. Nothing new is stored for it (decision 041).
 */
import { eventsOfType, type RunEvent } from '../model/run-events.ts';
import { FINAL_RUN_STATUSES } from '../model/statuses.ts';
import type { RunRecord } from '../ports/run-store.ts';
import type { ClosedWaitState, OpenWaitState, WaitState, WaitSubject } from './wait.ts';

export type { ClosedWaitState, OpenWaitState, WaitState };

/** Who "decided" a Confirm nobody answered in time: no person (decisions/target-decision.ts records it). */
export const EXPIRED_BY = 'tandem:expired';

export interface WaitFacts {
  run: RunRecord;
  /** The run's events: who answered what, which plan expired. */
  events: readonly RunEvent[];
  /** Whether the wait's message was posted (a stored wait message). */
  delivered: boolean;
}

export function isOpenState(state: WaitState): state is OpenWaitState {
  return state === 'owed' || state === 'delivered';
}

/** The state of one wait, from its row and the run's facts. */
export function stateOf(subject: WaitSubject, facts: WaitFacts): WaitState {
  const closed = closedState(subject, facts);
  if (closed) return closed;
  return facts.delivered ? 'delivered' : 'owed';
}

/** How the wait ended, or null while it is open. */
function closedState(subject: WaitSubject, { run, events }: WaitFacts): ClosedWaitState | null {
  const ended = FINAL_RUN_STATUSES.includes(run.status);
  const current = (planVersion: number | null) => planVersion === run.currentPlanVersion;
  if (subject.kind === 'approval') {
    const version = subject.planVersion;
    if (!ended && run.status === 'awaiting-approval' && current(version)) return null;
    if (eventsOfType(events, 'plan-expired').some((e) => e.data.version === version)) return 'expired';
    if (eventsOfType(events, 'plan-rejected').some((e) => e.data.version === version)) return 'answered';
    // Approved: an approval of this version let the run go on with it (a partial approval left it waiting).
    const approved = eventsOfType(events, 'plan-approved').some((e) => e.data.version === version);
    // Past the check above, a current version no longer awaits approval: the run went on with it.
    const wentOn = eventsOfType(events, 'step-started').some((e) => e.data.planVersion === version) || current(version);
    return approved && wentOn ? 'answered' : 'cancelled';
  }
  if (subject.kind === 'question') {
    if (subject.question.answer !== null) return 'answered';
    return !ended && current(subject.question.planVersion) ? null : 'cancelled';
  }
  if (subject.kind === 'escalation') {
    const { escalation } = subject;
    // A failed undo waits for someone to undo it by hand, after the rollback ended the run too (housekeeping.ts sweeps it).
    if (escalation.status === 'open') return ended && escalation.kind !== 'rollback-failed' ? 'cancelled' : null;
    // A failed undo nobody took on within its time to live (failed-undo-expiry.ts; before, stored as resolved by EXPIRED_BY).
    if (escalation.status === 'expired' || escalation.resolvedBy === EXPIRED_BY) return 'expired';
    // Its own answer is an `escalation-resolved` event naming it; one closed with others by another answer has none.
    const ownAnswer = eventsOfType(events, 'escalation-resolved').some((e) => e.data.escalationId === escalation.id);
    return ownAnswer ? 'answered' : 'cancelled';
  }
  const { confirmation } = subject;
  if (confirmation.status !== 'pending') return confirmation.decidedBy === EXPIRED_BY ? 'expired' : 'answered';
  // A rollback step undoes a change of whichever version made it, so a Confirm of it stays open while rolling back.
  if (ended || !(run.status === 'rolling-back' || current(confirmation.planVersion))) return 'cancelled';
  return null;
}
