/**
 * What a wait does at its `remindAt` and `expiresAt` (wait.ts), one path for every kind: it is re-pinged
 * exactly once (CONTRACT §5; claimReminder makes it once across replicas), at the first sweep after
 * `remindAt`; at `expiresAt` a plan can no longer be approved (it can only be proposed again), a Confirm
 * aborts its step and a failed undo stops waiting (wait-expiry.ts, which a click past `expiresAt` uses too). An
 * escalation that asks for a decision, or a question, does not expire and is not pinged again: the run stays paused, and its message keeps its buttons. Expiry never runs
 * anything.
 */
import type { AgentContext, HousekeepingSettings } from '../context.ts';
import type { EscalationRecord, RunStatus } from '../ports/run-store.ts';
import type { WaitAddressee } from '../ports/surface.ts';
import { escalationOffer } from '../execution/escalation-offer.ts';
import { withStepTitle } from '../delivery/owed-delivery.ts';
import { planRisk } from '../decisions/approval-need.ts';
import { person, type Text, type TextPart, words } from '../text/text.ts';
import { stageAt, type Wait, type WaitKind } from './wait.ts';
import { duration, expireIfDue } from './wait-expiry.ts';

/** Approvers named in a reminder; a longer list is a group's job. */
const MAX_PINGED = 5;

/** How each kind's reminders are named in the store (claimReminder), kept from before there was one model. */
const REMINDER_KIND: Record<WaitKind, string> = {
  approval: 'approval-reminder',
  escalation: 'escalation-reping',
  question: 'question-reminder',
  confirm: 'confirm-reping',
};

/** Run statuses in which a kind's reminder goes out (an escalation or a plan's approval: whenever it is open). */
const REMINDED_IN: Partial<Record<WaitKind, readonly RunStatus[]>> = {
  question: ['awaiting-answer', 'paused', 'executing'],
  confirm: ['paused', 'executing', 'rolling-back'],
};

export async function remindOrExpire(ctx: AgentContext, wait: Wait, now: Date, settings: HousekeepingSettings): Promise<void> {
  const stage = stageAt(wait, now);
  if (stage === 'none' || !(REMINDED_IN[wait.kind]?.includes(wait.run.status) ?? true)) return;
  if (await expireIfDue(ctx, wait, now, settings)) return;
  // A plan below the confidence threshold waits twice over (its approval and its escalation) for one decision: the
  // approval's reminder, which says when the plan expires, is its one reminder.
  if (wait.subject.kind === 'escalation' && wait.subject.escalation.kind === 'low-confidence') return;
  // The one reminder, under the wait's own key: a sweep that first sees it after the TTL still sends it, once.
  if (!(await ctx.store.claimReminder({ runId: wait.run.id, kind: REMINDER_KIND[wait.kind], key: wait.key }))) return;
  await sendAgain(ctx, wait, now, settings);
}

/**
 * What an escalation's reminder says above it, true of the run now: a paused run waits as a whole; an executing one
 * goes on with what does not depend on the step; a failed undo offers nothing to pick, and the rollback goes on.
 */
export function escalationReminderNote(status: RunStatus, kind: EscalationRecord['kind']): string {
  if (kind === 'rollback-failed') return 'Still waiting for someone to undo it by hand; the rest of the rollback goes on.';
  if (status === 'paused') return 'Still waiting for a decision; the run stays paused until someone picks an action.';
  return 'Still waiting for a decision; what depends on this step waits until someone picks an action, and the rest of the run goes on.';
}

/** The reminder: each kind's message, addressed to whom it was handed, if anyone. */
async function sendAgain(ctx: AgentContext, wait: Wait, now: Date, settings: HousekeepingSettings): Promise<void> {
  const { run, subject } = wait;
  if (subject.kind === 'approval') {
    const left = Math.max(0, settings.waitTtlS - Math.floor((now.getTime() - wait.openedAt.getTime()) / 1000));
    const whom = await approvalReminderWhom(ctx, wait, settings);
    await ctx.thread.surface.notify(run, words`${whom} Nothing runs until someone approves it; it expires in ${duration(left)}.`);
    return;
  }
  const addressee = await pingAddressee(ctx, wait);
  if (subject.kind === 'escalation') {
    const offer = await escalationOffer(ctx, run, subject.escalation, escalationReminderNote(run.status, subject.escalation.kind));
    await ctx.thread.surface.escalate(run, subject.escalation, addressee ? { ...offer, addressee } : offer);
  } else if (subject.kind === 'question') {
    const { question } = subject;
    const asked = { questionId: question.id, ...(addressee ? { addressee } : {}) };
    if (question.stepId) await ctx.thread.surface.ask(run, question.stepId, question.question, undefined, asked);
    else await ctx.thread.surface.askRequester(run, question.question.split('\n'), asked);
  } else {
    await ctx.thread.surface.confirmTarget(run, await withStepTitle(ctx, subject.confirmation), undefined, addressee);
  }
}

/**
 * A wait handed to someone (Reassign) reminds that person by name, whoever else its message pings; the
 * copy posted again says whom it waits on, as the first post does.
 */
async function pingAddressee(ctx: AgentContext, wait: Wait): Promise<WaitAddressee | undefined> {
  const { addressee } = wait;
  if (addressee)
    await ctx.thread.surface.notify(wait.run, words`${person(addressee.to)} this is still waiting on you (${person(addressee.by)} handed it to you).`);
  return addressee;
}

/**
 * Whom a plan's reminder reaches, so that it always reaches a person: whom it was handed to (a Reassign); else
 * the approvers by name when there are few enough to name; else the requester, who can find an approver — told
 * that anyone in the channel may approve when TANDEM_APPROVERS is empty and no policy file says otherwise.
 */
async function approvalReminderWhom(ctx: AgentContext, wait: Wait, settings: HousekeepingSettings): Promise<Text> {
  if (wait.addressee)
    return words`${person(wait.addressee.to)} this is still waiting on you (${person(wait.addressee.by)} handed it to you): the plan above waits for your approval.`;
  const approvers = settings.approvers ?? [];
  if (approvers.length > 0 && approvers.length <= MAX_PINGED) {
    const parts: TextPart[] = approvers.flatMap((id) => [person(id), ' ']);
    return words`${parts}The plan above is still waiting for an approver.`;
  }
  const requester = person(wait.run.requester);
  if (approvers.length > 0 || !ctx.config.policy.current().fromSettings)
    return words`${requester} the plan above is still waiting for an approver; the plan shows who may approve it.`;
  const destructive = await hasDestructiveStep(ctx, wait);
  const who = destructive ? 'anyone in this channel other than you may approve it (it has a destructive step)' : 'anyone in this channel may approve it';
  return words`${requester} the plan above is still waiting for an approver: ${who}.`;
}

async function hasDestructiveStep(ctx: AgentContext, wait: Wait): Promise<boolean> {
  const version = wait.planVersion === null ? undefined : await ctx.store.getPlanVersion(wait.run.id, wait.planVersion);
  return version !== undefined && planRisk(version.plan, ctx.config.tools.riskOf) === 'destructive';
}
