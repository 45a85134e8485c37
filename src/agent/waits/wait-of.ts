/**
 * One wait for a person, named by its ref (a button, a Reassign), in whatever state it is now — open or
 * answered, expired, cancelled (wait-state.ts) — or undefined when the ref names nothing stored.
 */
import type { AgentContext } from '../context.ts';
import type { RunRecord, WaitRef } from '../ports/run-store.ts';
import { toWait, type Opened } from './open-waits.ts';
import type { Wait } from './wait.ts';

export async function waitOf(ctx: AgentContext, ref: WaitRef): Promise<Wait | undefined> {
  const escalation = ref.kind === 'escalation' ? await ctx.store.getEscalation(ref.escalationId) : undefined;
  const runId = ref.kind === 'escalation' ? escalation?.runId : ref.runId;
  const run = runId === undefined ? undefined : await ctx.store.getRun(runId);
  if (!run) return undefined;
  const opened = escalation ? { subject: { kind: 'escalation' as const, escalation }, openedAt: escalation.createdAt } : await rowOf(ctx, run, ref);
  if (!opened) return undefined;
  const [events, messages] = await Promise.all([ctx.store.listEvents(run.id), ctx.store.listWaitMessages(run.id)]);
  return toWait(ctx, run, opened, events, messages);
}

async function rowOf(ctx: AgentContext, run: RunRecord, ref: WaitRef): Promise<Opened | undefined> {
  if (ref.kind === 'approval') {
    const version = await ctx.store.getPlanVersion(run.id, ref.planVersion);
    return version && { subject: { kind: 'approval', planVersion: version.version }, openedAt: version.createdAt };
  }
  if (ref.kind === 'question') {
    const question = (await ctx.store.listQuestions(run.id)).find((q) => q.id === ref.questionId);
    return question && { subject: { kind: 'question', question }, openedAt: question.createdAt };
  }
  if (ref.kind === 'confirm') {
    const confirmation = (await ctx.store.listConfirmations(run.id)).find((c) => c.planVersion === ref.planVersion && c.stepId === ref.stepId);
    return confirmation && { subject: { kind: 'confirm', confirmation }, openedAt: confirmation.createdAt };
  }
  return undefined;
}
