/**
 * Reassign: a wait for a person (a plan's approval, an escalation, a question, a Confirm) handed to someone else. Only
 * someone who may answer the wait may hand it on, asked the way the answer asks (the policy in force,
 * or the settings); and only to someone who may answer it too, so a hand-over never lets anyone decide
 * what they could not decide before. The one exception is a question: its new addressee may answer it
 * (an answer is data; a write it picks a target for still waits for an approver's Confirm). The
 * hand-over is a `wait-reassigned` event; nothing else changes (decision 032).
 */
import type { AgentContext } from '../context.ts';
import { refuse, type ReassignRefusalCode, type Refused } from '../model/refusal.ts';
import type { Reassigned, WaitRef } from '../ports/run-store.ts';
import { person, type Text, words } from '../text/text.ts';
import type { Wait } from './wait.ts';
import { waitOf } from './wait-of.ts';
import { isOpenState, type ClosedWaitState } from './wait-state.ts';

type ReassignResult = Refused<Reassigned, ReassignRefusalCode, Text>;

/** Why a closed wait can no longer be handed on, by how it closed (wait-state.ts). */
const CLOSED: Record<ClosedWaitState, string> = {
  answered: 'This is no longer waiting for anyone: it was answered. Nothing changed.',
  expired: 'This is no longer waiting for anyone: it expired. Nothing changed.',
  cancelled: 'This is no longer waiting for anyone: the run moved on without it. Nothing changed.',
};

export async function reassignWait(ctx: AgentContext, input: { wait: WaitRef; userId: string; to: string }): Promise<ReassignResult> {
  const found = await findOpenWait(ctx, input.wait);
  if (!found.ok) return found;
  const wait = found.value;
  const { addressee } = wait;
  const clicker = wait.addresseeMayAnswer && addressee?.to === input.userId ? undefined : await wait.mayAnswer(input.userId);
  // The refusal says why, as the answer itself would have: the rule and who may, or the settings' sentence.
  if (clicker && !clicker.ok)
    return refuse('not-allowed', words`Only someone who may answer this can hand it to someone else. ${clicker.error.message} Nothing changed.`);
  if (input.to === input.userId) return refuse('same-person', 'That is you: pick someone else to hand this to. Nothing changed.');
  if (addressee?.to === input.to) return refuse('already-addressed', words`This already waits on ${person(input.to)}. Nothing changed.`);
  const theirs = wait.addresseeMayAnswer ? undefined : await wait.mayAnswer(input.to);
  if (theirs && !theirs.ok)
    return refuse(
      'addressee-may-not-answer',
      words`${person(input.to)} may not answer this, so it was not handed to them.${ruleOf(ctx, theirs.error.message)} Nothing changed.`,
    );
  const handed = { to: input.to, from: addressee?.to ?? null, by: input.userId };
  await ctx.store.appendEvent(wait.run.id, 'wait-reassigned', { wait: wait.kind, key: wait.key, ...handed });
  return { ok: true, value: { runId: wait.run.id, ...handed } };
}

/**
 * Under TANDEM_POLICY, the rule that refused the new addressee (its words name no "you"); the settings' sentences
 * speak to the person refused, not of someone else, so there the refusal keeps its one sentence.
 */
function ruleOf(ctx: AgentContext, why: Text): Text {
  return ctx.config.policy.current().fromSettings === true ? '' : words` ${why}`;
}

/** The open wait the ref names (waitOf): answered, expired or cancelled, it waits for nobody, and the refusal says which. */
async function findOpenWait(ctx: AgentContext, ref: WaitRef): Promise<Refused<Wait, 'wait-missing' | 'wait-closed', Text>> {
  const wait = await waitOf(ctx, ref);
  // A ref naming a run that exists but no row of it (a forged or stale version) names nothing waiting.
  if (!wait && ref.kind !== 'escalation' && (await ctx.store.getRun(ref.runId)))
    return refuse('wait-closed', 'This is no longer waiting for anyone. Nothing changed.');
  if (!wait)
    return refuse(
      'wait-missing',
      ref.kind === 'escalation' ? 'That escalation no longer exists. Nothing changed.' : 'That run does not exist. Nothing changed.',
    );
  return isOpenState(wait.state) ? { ok: true, value: wait } : refuse('wait-closed', CLOSED[wait.state]);
}
