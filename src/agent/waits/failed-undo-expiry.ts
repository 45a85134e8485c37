/**
 * A failed undo (a `rollback-failed` escalation: an Abort's rollback step that writes failed, and a person must undo
 * it by hand) expires as every wait expires (CONTRACT §5): past its time to live it is stored as expired (no action
 * recorded: nobody chose Abort), every copy of its message loses its Reassign button, and the thread is told in plain
 * words what remains undone. Nothing runs: the undo is not tried again.
 */
import type { AgentContext } from '../context.ts';
import type { EscalationRecord, RunRecord } from '../ports/run-store.ts';
import { type Text, words } from '../text/text.ts';

/** Expires it, once across replicas (the store's open → expired); `waited` is its time to live as a person says it. */
export async function expireFailedUndo(ctx: AgentContext, run: RunRecord, escalation: EscalationRecord, waited: string): Promise<void> {
  if (!(await ctx.store.expireEscalation(escalation.id))) return;
  const { undo, undone } = await titlesOf(ctx, escalation);
  const left: Text = undone
    ? words`Unless someone undid it by hand, what “${undone}” changed is still in place.`
    : 'Unless someone undid it by hand, what it was to undo is still in place.';
  await ctx.thread.surface.notify(
    run,
    words`Nobody took on the failed undo “${undo}” within ${waited}, so it no longer waits for anyone and Tandem will not try it again. ${left}`,
  );
  await ctx.thread.surface.escalationExpired?.(run, escalation, words`Expired: nobody took this on within ${waited}; nothing more was done. ${left}`);
}

/** The failed rollback step's title, and the title of the forward step whose change it was to undo. */
async function titlesOf(ctx: AgentContext, escalation: EscalationRecord): Promise<{ undo: string; undone: string | undefined }> {
  const version = escalation.planVersion === null ? undefined : await ctx.store.getPlanVersion(escalation.runId, escalation.planVersion);
  const step = version?.plan.rollback.find((candidate) => candidate.id === escalation.stepId);
  const undone = step?.undoes ? version?.plan.steps.find((candidate) => candidate.id === step.undoes)?.title : undefined;
  return { undo: step?.title ?? escalation.stepId ?? 'the undo step', undone };
}
