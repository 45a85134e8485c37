/**
 * A message in a run's conversation: "cancel" stops the run; anything else answers a pending question (an
 * Answer form's, the one it names; which one a mention answers: waits/question-choice.ts). Both count only from
 * the requester or an approver, or for a question, from whom it was handed to.
 */
import { checkRequesterOrApprover } from './approval-policy.ts';
import type { AgentContext } from '../context.ts';
import type { CancelRefusalCode, FollowUpOutcome } from '../ports/agent-api.ts';
import type { Conversation, RunRecord } from '../ports/run-store.ts';
import { redactText } from '../text/redact.ts';
import { isCancelRequest } from '../text/cancel-request.ts';
import { decisionRefusal } from './decision-refusals.ts';
import { refuse, type Refused } from '../model/refusal.ts';
import { chooseQuestion } from '../waits/question-choice.ts';
import { isFinal, NOT_FINAL } from '../execution/run-ending.ts';
import { continueIfClear } from './escalation-resolution.ts';
import { person, type Text, words } from '../text/text.ts';
import { decided, decideHolding, drive, endRun, planAgain, type Decided } from '../ports/effects.ts';

interface FollowUpInput {
  conversation: Conversation;
  userId: string;
  text: string;
  requestId?: string | undefined;
  /** From an Answer form: an answer, never a cancel (only a message in the thread cancels). */
  asAnswer?: boolean | undefined;
  /** From an Answer form: the question it was opened on, which alone it answers (waits/question-choice.ts). */
  questionId?: string | undefined;
}

/** What the message did, and what should happen next: the wiring performs it, then lets go of the run's lease taken here. */
export async function followUp(ctx: AgentContext, input: FollowUpInput): Promise<Decided<FollowUpOutcome>> {
  const run = await ctx.store.findRunByConversation(input.conversation);
  if (!run) return decided('no-run');
  if (isFinal(run.status)) return decided('ignored');
  // Held while the answer moves the run on and until the wiring handed it to a driver or planner (a driver elsewhere keeps it; it sees the answer).
  return decideHolding(ctx.replica.leases, run.id, () => answerOrCancel(ctx, run, input));
}

async function answerOrCancel(ctx: AgentContext, run: RunRecord, input: FollowUpInput): Promise<Decided<FollowUpOutcome>> {
  const cancelling = !input.asAnswer && isCancelRequest(input.text);
  const text = redactText(input.text.trim(), ctx.config.settings.secrets);
  if (!cancelling && !text) return decided('ignored');
  // Only the requester or an approver decides for the run (checked before anything is stored); a question handed to
  // someone may be answered by them too.
  const may = await checkRequesterOrApprover({
    action: cancelling ? 'cancel' : 'answer',
    userId: input.userId,
    policy: { gate: ctx.config.policy, run },
  });
  if (cancelling) {
    if (!may.ok) return decided({ refused: may.error });
    const cancelled = await cancelRun(ctx, { runId: run.id, userId: input.userId }, { checked: true });
    return decided(cancelled.result.ok ? 'cancelled' : 'ignored', cancelled.next);
  }
  const chosen = await chooseQuestion(ctx, run, { userId: input.userId, named: input.questionId, standing: may.ok ? undefined : may.error });
  if (!chosen.ok) return decided({ refused: chosen.refusal });
  const answered = await ctx.store.answer({
    runId: run.id,
    questionId: chosen.questionId,
    answer: text,
    userId: input.userId,
    requestId: input.requestId,
    stepFrom: ['executing', 'paused'],
    planFrom: ['awaiting-answer'],
    planTo: 'planning',
  });
  if (!answered.ok) return decided(answered.code === 'already-answered' ? 'already-answered' : 'ignored');
  const question = answered.value;
  // An executing run's driver looks again.
  if (question.stepId && question.planVersion !== null) return decided('answered', [...(await continueIfClear(ctx, run.id)), drive(run.id)]);
  // The plan itself asked: plan again with every answer so far.
  const answers = (await ctx.store.listQuestions(run.id))
    .filter((q) => q.stepId === null && q.answer !== null)
    .map((q) => ({ question: q.question, answer: q.answer!, answeredBy: q.answeredBy }));
  await ctx.thread.surface.planning(answered.run);
  return decided('answered', [planAgain(answered.run, answers)]);
}

/**
 * `checked`: the caller already made sure this person may cancel (the slow lookup is not repeated). The cancel is
 * stored here; what follows (the driver stopped, the unstarted steps cancelled, the summary) is the `end-run` effect
 * the wiring performs.
 */
export async function cancelRun(
  ctx: AgentContext,
  input: { runId: string; userId: string },
  options: { checked?: boolean } = {},
): Promise<Decided<Refused<void, CancelRefusalCode, Text>>> {
  const run = await ctx.store.getRun(input.runId);
  if (!run) return decided(refuse('run-missing', 'That run does not exist.'));
  if (isFinal(run.status)) return decided(refuse('run-ended', `The run already ended (${run.status}).`));
  if (!options.checked) {
    const may = await checkRequesterOrApprover({
      action: 'cancel',
      userId: input.userId,
      policy: { gate: ctx.config.policy, run },
    });
    if (!may.ok) return decided(may);
  }
  // The cancel is the decision: the run ends as cancelled here, whatever it was doing (no new step starts after this).
  const stored = await ctx.store.decide({
    runId: run.id,
    planVersion: null,
    from: NOT_FINAL,
    to: 'cancelled',
    event: { type: 'run-cancel-requested', data: { by: input.userId } },
  });
  if (!stored.ok)
    return decided(
      stored.code === 'not-waiting'
        ? refuse('run-ended', `The run already ended (${stored.run?.status ?? 'gone'}).`)
        : { ok: false, error: decisionRefusal(stored.code, stored.run, null) },
    );
  return decided({ ok: true, value: undefined }, [endRun(run.id, 'cancelled', words`Cancelled by ${person(input.userId)}.`)]);
}
