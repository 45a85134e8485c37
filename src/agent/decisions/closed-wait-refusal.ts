/**
 * How an answer to a wait that is no longer open is refused (decision 041): in the words each kind's people already
 * knew (who answered; the plan changed; the run ended), or, for an expired wait, that it expired (`wait-expired`). A
 * wait past its time to live that no sweep has expired yet is expired here first, as the sweep would (wait-expiry.ts).
 * Shared by every answer (answer-wait.ts) and by Modify on a plan (plan-decisions.ts).
 */
import type { AgentContext } from '../context.ts';
import type { ConfirmRefusalCode, EscalationRefusalCode, PlanDecisionRefusalCode, Refusal, WaitClosedCode } from '../model/refusal.ts';
import { isFinal } from '../execution/run-ending.ts';
import { person, type Text, words } from '../text/text.ts';
import type { ClosedWaitState, Wait } from '../waits/wait.ts';
import { waitOf } from '../waits/wait-of.ts';
import { isOpenState } from '../waits/wait-state.ts';
import { expireIfDue, expiringWaitOf, waitTimes } from '../waits/wait-expiry.ts';
import { checkVersion } from './approval-click.ts';
import { decisionRefusal } from './decision-refusals.ts';
import { answeredLine } from './escalation-resolution.ts';
import { CONFIRM_PLAN_CHANGED } from './target-decision.ts';

/** Why an answer to a closed wait changed nothing, in any kind's codes. */
export type ClosedRefusal = { code: PlanDecisionRefusalCode | EscalationRefusalCode | ConfirmRefusalCode; message: Text };

/**
 * Modify on a plan (its button, its form's edit or revision) that expired, or is past its time to live and not yet
 * swept (expired here, as Approve's click does): refused with the expiry's words, so an expired plan gets no new
 * version (CONTRACT §5: it "can only be proposed again"). Undefined while the plan may still be changed.
 */
export async function planExpiredRefusal(ctx: AgentContext, ref: { runId: string; planVersion: number }): Promise<Refusal<WaitClosedCode, Text> | undefined> {
  const wait = await waitOf(ctx, { kind: 'approval', ...ref });
  if (!wait) return undefined;
  const refusal = wait.state === 'expired' ? closedRefusal(wait, 'expired') : isOpenState(wait.state) ? await expiredAtClick(ctx, wait) : undefined;
  return refusal?.code === 'wait-expired' ? { code: 'wait-expired', message: refusal.message } : undefined;
}

/**
 * The click came after the wait's `expiresAt` and before the sweep that expires it: it expires here, with the
 * sweep's effects, and the click is refused as the wait now stands (expired, or answered by whoever came first).
 */
export async function expiredAtClick(ctx: AgentContext, wait: Wait): Promise<ClosedRefusal | undefined> {
  const expiring = await expiringWaitOf(ctx, wait);
  if (!expiring || !isOpenState(expiring.state) || !(await expireIfDue(ctx, expiring, ctx.now(), waitTimes(ctx)))) return undefined;
  const after = await waitOf(ctx, expiring.ref);
  return closedRefusal(after ?? expiring, after && !isOpenState(after.state) ? after.state : 'expired');
}

/** How a closed wait refuses, in the words each kind's people already knew; an expired one says it expired. */
export function closedRefusal(wait: Wait, state: ClosedWaitState): ClosedRefusal {
  const { run, subject } = wait;
  if (state === 'expired') return { code: 'wait-expired', message: expiredWords(subject) };
  if (subject.kind === 'escalation') {
    const { escalation } = subject;
    if (escalation.status === 'resolved')
      return { code: 'already-resolved', message: words`This was already answered: ${answeredLine(escalation)}. Nothing more was done.` };
    return { code: 'run-ended', message: 'This run has already ended; nothing was done.' };
  }
  if (subject.kind === 'confirm') {
    const { confirmation } = subject;
    if (isFinal(run.status)) return { code: 'run-ended', message: `The run already ended (${run.status}); nothing was done.` };
    if (confirmation.status !== 'pending')
      return { code: 'already-decided', message: words`This was already ${confirmation.status} by ${person(confirmation.decidedBy ?? '?')}.` };
    return { code: 'plan-changed', message: CONFIRM_PLAN_CHANGED };
  }
  if (subject.kind === 'approval') {
    // Another version: the click on this one runs nothing, and the clicker is told the plan changed (CONTRACT §5).
    const current = checkVersion(run, subject.planVersion);
    if (!current.ok) return current.error;
    return decisionRefusal('not-waiting', run, subject.planVersion);
  }
  return { code: 'not-waiting', message: 'This is no longer waiting for an answer; nothing was done.' };
}

/** What an expired wait says to a late click, by kind (only a plan, a Confirm and a failed undo expire). */
function expiredWords(subject: Wait['subject']): Text {
  if (subject.kind === 'confirm')
    return words`This Confirm expired: nobody confirmed what ${confirmedStep(subject.confirmation.stepTitle)} acts on in time, so it did not run. Nothing was done now.`;
  if (subject.kind === 'escalation') return 'This expired: nobody took it on in time. Nothing was done now.';
  return 'This plan expired: nobody approved it in time, and nothing ran. Nothing was done now; it can only be proposed again (Propose again, in the thread), as a fresh plan to approve.';
}

/** The step a Confirm was for, by its title where the record carries it: people never see a step's id. */
function confirmedStep(title: string | null | undefined): string {
  return title ? `“${title}”` : 'its step';
}
