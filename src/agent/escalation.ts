/** Hands a decision to a person: an open escalation, the run paused, the surface told. */
import { reportBoard } from './board.ts';
import type { AgentContext } from './context.ts';
import type { EscalationRecord, RunStatus } from './ports/run-store.ts';

export async function escalate(
  ctx: AgentContext,
  input: { runId: string; planVersion: number | null; stepId: string | null; kind: EscalationRecord['kind']; message: string; stakes: string; pauseFrom?: readonly RunStatus[] },
): Promise<EscalationRecord> {
  const escalation = await ctx.store.openEscalation({ runId: input.runId, planVersion: input.planVersion, stepId: input.stepId, kind: input.kind, message: input.message });
  const pauseFrom = input.pauseFrom ?? ['executing', 'planning'];
  if (pauseFrom.length) await ctx.store.transitionRun(input.runId, pauseFrom, 'paused');
  await ctx.store.appendEvent(input.runId, 'escalation-opened', { escalationId: escalation.id, kind: input.kind, stepId: input.stepId, message: input.message });
  const run = await ctx.store.getRun(input.runId);
  if (run) await ctx.surface.escalate(run, escalation, input.stakes);
  await reportBoard(ctx, input.runId);
  return escalation;
}
