/**
 * One path for a person's answer to a wait (issue 31, decision 041): the plan's Approve or Reject, an
 * escalation's answer, a Confirm or Abort. Every answer goes the same way:
 *
 * 1. the wait the button names is read in whatever state it is now (waits/wait-of.ts);
 * 2. a closed wait refuses, saying how it closed — answered, expired or cancelled (waits/wait-state.ts) — and
 *    nothing changes; an open one past its time to live (a plan's approval, also from its low-confidence
 *    escalation, or a Confirm) is expired here as the next sweep would have expired it, and refuses as expired
 *    (CONTRACT §5: an expired plan is "never run on an old click"; waits/wait-expiry.ts);
 * 3. a wait handed on by a Reassign refuses someone it was handed away from who may not answer it anyway,
 *    naming who has it now;
 * 4. the kind's own step (ANSWER_PATHS) asks the policy who may give this answer and records it with the
 *    store's compare-and-set (still open, still this version), then carries out what it does.
 *
 * What differs by kind is only the last step, as data: which decision module takes the answer. A question is
 * answered by a message in the thread (decisions/follow-up.ts), which names no wait; it asks the same addressee
 * rule there.
 */
import type { AgentContext } from '../context.ts';
import { refuse, type ConfirmRefusalCode, type EscalationRefusalCode, type PlanDecisionRefusalCode, type Refused } from '../model/refusal.ts';
import type { EscalationAnswer, WaitRef } from '../ports/run-store.ts';
import { person, type Text, words } from '../text/text.ts';
import { handedAwayFrom } from '../waits/addressee.ts';
import type { Wait } from '../waits/wait.ts';
import { waitOf } from '../waits/wait-of.ts';
import { isOpenState } from '../waits/wait-state.ts';
import { resolveEscalation } from './escalation-resolution.ts';
import { closedRefusal, expiredAtClick } from './closed-wait-refusal.ts';
import { decide } from './plan-decisions.ts';
import { decideTarget } from './target-decision.ts';
import { decided, type Decided } from '../ports/effects.ts';

/** The kinds answered by a button that names the wait. */
export type ButtonWaitKind = 'approval' | 'escalation' | 'confirm';

/** What each kind of answer says. */
export interface WaitAnswers {
  approval: { decision: 'approve' | 'reject'; digest?: string | undefined };
  escalation: { action: EscalationAnswer; digest?: string | undefined };
  confirm: { decision: 'confirm' | 'abort' };
}

/** Why an answer of each kind changed nothing. */
export interface WaitAnswerRefusals {
  approval: PlanDecisionRefusalCode;
  escalation: EscalationRefusalCode;
  confirm: ConfirmRefusalCode;
}

export interface AnswerInput<K extends ButtonWaitKind> {
  wait: Extract<WaitRef, { kind: K }>;
  userId: string;
  answer: WaitAnswers[K];
}

type AnswerResult<K extends ButtonWaitKind> = Refused<void, WaitAnswerRefusals[K], Text>;
/** The answer, and what should happen next (drive the run, plan it again, …) for the wiring to perform before it lets go of `holding`. */
export type Answered<K extends ButtonWaitKind> = Decided<AnswerResult<K>>;

/** Each kind's own step: asks the policy, records the answer with compare-and-set, carries it out as far as it is the decision's. */
const ANSWER_PATHS: { [K in ButtonWaitKind]: (ctx: AgentContext, input: AnswerInput<K>) => Promise<Answered<K>> } = {
  approval: (ctx, { wait, userId, answer }) => decide(ctx, { runId: wait.runId, planVersion: wait.planVersion, userId, ...answer }),
  escalation: (ctx, { wait, userId, answer }) => resolveEscalation(ctx, { escalationId: wait.escalationId, userId, ...answer }),
  confirm: (ctx, { wait, userId, answer }) =>
    decideTarget(ctx, { runId: wait.runId, planVersion: wait.planVersion, stepId: wait.stepId, userId, decision: answer.decision }),
};

export async function answerWait<K extends ButtonWaitKind>(ctx: AgentContext, input: AnswerInput<K>): Promise<Answered<K>> {
  const kind = (input.wait as WaitRef).kind as K;
  const path = ANSWER_PATHS[kind] as (ctx: AgentContext, input: AnswerInput<K>) => Promise<Answered<K>>;
  const wait = await waitOf(ctx, input.wait);
  // Nothing stored under that name: the kind's own step says what is missing (a run, a version, an escalation).
  if (!wait) return path(ctx, input);
  if (!isOpenState(wait.state)) return decided({ ok: false, error: closedRefusal(wait, wait.state) } as AnswerResult<K>);
  const expired = await expiredAtClick(ctx, wait);
  if (expired) return decided({ ok: false, error: expired } as AnswerResult<K>);
  const handedAway = await handedAwayRefusal(ctx, wait, input.userId);
  if (handedAway) return decided(handedAway as AnswerResult<K>);
  return path(ctx, input);
}

/**
 * A wait handed on by a Reassign: someone it was handed away from, who may not answer it on their own standing,
 * is told who has it now (a question's addressee may answer it; follow-up.ts asks the same for a message).
 */
async function handedAwayRefusal(ctx: AgentContext, wait: Wait, userId: string) {
  const { addressee } = wait;
  if (!addressee || addressee.to === userId) return undefined;
  const events = await ctx.store.listEvents(wait.run.id);
  if (!handedAwayFrom(events, wait.kind, wait.key, userId) || (await wait.mayAnswer(userId)).ok) return undefined;
  return refuse(
    'not-requester-or-approver',
    words`This was handed to ${person(addressee.to)} by ${person(addressee.by)}, so your answer was not taken; ${person(addressee.to)} can answer it.`,
  );
}
