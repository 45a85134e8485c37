/** Hands a decision to a person: an open escalation, the run paused, the surface told (what it offers, decided here: execution/escalation-offer.ts). */
import { movesFrom } from '../model/run-moves.ts';
import type { AgentContext } from '../context.ts';
import { escalationOffer } from './escalation-offer.ts';
import { owedEscalation } from '../delivery/owed-delivery.ts';
import type { EscalationRecord, RunStatus } from '../ports/run-store.ts';
import type { Text } from '../text/text.ts';

export async function escalate(
  ctx: AgentContext,
  input: {
    runId: string;
    planVersion: number | null;
    stepId: string | null;
    kind: EscalationRecord['kind'];
    /** What happened, as stored (for `tandem show` and the logs; the thread says it in plainer words). */
    message: Text;
    /** The run is paused from these statuses (none: it goes on around this wait, its driver pauses it when idle). */
    pauseFrom?: readonly RunStatus[];
    /** False when a live driver draws the board itself. */
    board?: boolean;
  },
): Promise<EscalationRecord> {
  const subject = { planVersion: input.planVersion, stepId: input.stepId, kind: input.kind };
  const run = await ctx.store.getRun(input.runId);
  // What the message offers is decided now, with the facts of now; delivering it decides nothing.
  const offer = run ? await escalationOffer(ctx, run, { ...subject, message: input.message }) : undefined;
  // The message the thread is owed is written with the escalation, so a crash cannot leave it unsaid.
  const escalation = await ctx.store.openEscalation({ runId: input.runId, ...subject, message: input.message }, owedEscalation(ctx, offer));
  const pauseFrom = input.pauseFrom ?? movesFrom('pause');
  if (pauseFrom.length) await ctx.store.transitionRun(input.runId, pauseFrom, 'paused');
  await ctx.store.appendEvent(input.runId, 'escalation-opened', {
    escalationId: escalation.id,
    kind: input.kind,
    stepId: input.stepId,
    message: input.message,
  });
  await ctx.thread.owed.deliver(input.runId);
  if (input.board !== false) await ctx.thread.boards.changed(input.runId);
  return escalation;
}
