/** A message in a run's conversation: "cancel" stops the run; anything else answers a pending question. */
import { checkRejecter } from './approval-policy.ts';
import type { AgentContext } from './context.ts';
import type { Result } from './errors.ts';
import { planRun } from './planning.ts';
import type { Conversation, RunRecord } from './ports/run-store.ts';
import { redactText } from './redact.ts';
import { cancelUnstarted, finishRun, isFinal } from './run-ending.ts';
import { continueIfClear } from './escalation-resolution.ts';

const CANCEL = /^\s*(?:<@[A-Z0-9]+>\s*)*(?:cancel|stop)\b/i;

export async function followUp(ctx: AgentContext, input: { conversation: Conversation; userId: string; text: string }): Promise<'answered' | 'cancelled' | 'no-run' | 'ignored'> {
  const run = await ctx.store.findRunByConversation(input.conversation);
  if (!run) return 'no-run';
  if (isFinal(run.status)) return 'ignored';
  // Held while the answer moves the run on and hands it to a driver or planner here (a driver elsewhere keeps it; it sees the answer).
  return ctx.leases.during(run.id, () => answerOrCancel(ctx, run, input));
}

async function answerOrCancel(ctx: AgentContext, run: RunRecord, input: { userId: string; text: string }): Promise<'answered' | 'cancelled' | 'ignored'> {
  if (CANCEL.test(input.text)) return (await cancelRun(ctx, { runId: run.id, userId: input.userId })).ok ? 'cancelled' : 'ignored';
  const text = redactText(input.text.replace(/^\s*(?:<@[A-Z0-9]+>\s*)+/, '').trim(), ctx.settings.secrets);
  if (!text) return 'ignored';
  const question = await ctx.store.answerQuestion({ runId: run.id, answer: text, userId: input.userId });
  if (!question) return 'ignored';
  await ctx.store.appendEvent(run.id, 'question-answered', { questionId: question.id, stepId: question.stepId, by: input.userId });
  if (question.stepId && question.planVersion !== null) {
    await ctx.store.setStepStatus({ runId: run.id, planVersion: question.planVersion, stepId: question.stepId, from: ['waiting'], to: 'succeeded', output: { answer: text, answeredBy: input.userId } });
    await continueIfClear(ctx, run.id);
    ctx.kick(run.id); // an executing run's driver looks again
    return 'answered';
  }
  // The plan itself asked: plan again with every answer so far.
  if (await ctx.store.transitionRun(run.id, ['awaiting-answer'], 'planning')) {
    const answers = (await ctx.store.listQuestions(run.id))
      .filter((q) => q.stepId === null && q.answer !== null)
      .map((q) => ({ question: q.question, answer: q.answer!, answeredBy: q.answeredBy }));
    const fresh = (await ctx.store.getRun(run.id)) ?? run;
    await ctx.surface.planning(fresh);
    ctx.spawn(ctx.leases.during(run.id, () => planRun(ctx, fresh, { answers })), 'planning after answers', run.id);
  }
  return 'answered';
}

export async function cancelRun(ctx: AgentContext, input: { runId: string; userId: string }): Promise<Result<void>> {
  const run = await ctx.store.getRun(input.runId);
  if (!run) return { ok: false, error: 'That run does not exist.' };
  if (isFinal(run.status)) return { ok: false, error: `The run already ended (${run.status}).` };
  const may = await checkRejecter({ userId: input.userId, requester: run.requester, approvers: ctx.approvers });
  if (!may.ok) return { ok: false, error: 'Only the requester or an approver may cancel this run.' };
  await ctx.store.appendEvent(run.id, 'run-cancel-requested', { by: input.userId });
  await ctx.stopDriver(run.id, 'cancel');
  await cancelUnstarted(ctx, run.id, `cancelled by <@${input.userId}>`);
  await finishRun(ctx, run.id, 'cancelled', `Cancelled by <@${input.userId}>.`);
  return { ok: true, value: undefined };
}
