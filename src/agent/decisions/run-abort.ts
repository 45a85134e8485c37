/**
 * Ending a run a person or an expiry stopped: cancelled, aborted by a person's Abort (its rollback runs), or aborted
 * by an expiry (nothing more runs). A decision returns the `end-run` effect (`abortRun`, a cancel's); the wiring
 * stops the run's driver here, then calls `endStoppedRun`.
 */
import type { AgentContext } from '../context.ts';
import { cancelUnstarted, finishRun, summarizeEnded } from '../execution/run-ending.ts';
import { rollBack, rollbackOrder, rollbackStepsInOrder } from '../execution/rollback.ts';
import { movesFrom } from '../model/run-moves.ts';
import { endRun, type Effect, type RunEnd } from '../ports/effects.ts';
import { type Text, words } from '../text/text.ts';

/** Stop everything, roll back what succeeded (newest first), and end the run as aborted. */
export const abortRun = (runId: string, reason: Text): Effect => endRun(runId, 'aborted', reason);

/**
 * End the run as aborted and run nothing more, not even its rollback: what a Confirm nobody answered in time does
 * (CONTRACT §5: expiry never runs anything; nobody is there to watch an undo). The summary names the undos left,
 * for a person to do or to ask for in a new run.
 *
 * Performed here, not returned: the expiry is decided inside a housekeeping sweep under the run's lease
 * (`expireConfirmation` in `leases.during`), three calls below the wiring, and the run must be stopped and ended
 * before that hold is let go of (decision 047).
 */
export function abortUnattended(ctx: AgentContext, runId: string, reason: Text): Promise<void> {
  return ctx.effects.perform(endRun(runId, 'aborted-unattended', reason));
}

/** `end-run`, once this process's driver of the run stopped (effects-runner.ts). */
export async function endStoppedRun(ctx: AgentContext, runId: string, end: RunEnd, why: Text): Promise<void> {
  if (end === 'cancelled') {
    // Who cancelled is said once, in the summary; each step only says it never started.
    // A rollback waiting for a Confirm is cancelled with the rest: its buttons then decide nothing.
    await cancelUnstarted(ctx, runId, 'not started: the run was cancelled', { rollbackToo: true });
    return summarizeEnded(ctx, runId, 'cancelled', why);
  }
  // A driver on another replica lets go when the run leaves `executing`.
  await ctx.store.transitionRun(runId, movesFrom('roll-back'), 'rolling-back');
  await ctx.replica.leases.take(runId);
  try {
    await (end === 'aborted' ? rollBackAndFinish(ctx, runId, why) : finishUnattended(ctx, runId, why));
  } finally {
    await ctx.replica.leases.release(runId).catch(() => undefined);
  }
}

async function rollBackAndFinish(ctx: AgentContext, runId: string, reason: Text): Promise<void> {
  await cancelUnstarted(ctx, runId, 'not started: the run was aborted');
  // The run stays rolling back while a rollback step waits for a Confirm; the Confirm or Abort carries it on.
  if ((await rollBack(ctx, runId)) === 'waiting') return;
  const [versions, steps] = await Promise.all([ctx.store.listPlanVersions(runId), ctx.store.listSteps(runId)]);
  const rolled = rollbackStepsInOrder(versions, steps, ctx.config.tools.riskOf);
  const detail = rolled.length ? ` Rolled back: ${rolled.map((s) => `${s.title} (${s.status})`).join('; ')}.` : ' Nothing needed rolling back.';
  await finishRun(ctx, runId, 'aborted', words`${reason}${detail}`);
}

async function finishUnattended(ctx: AgentContext, runId: string, reason: Text): Promise<void> {
  await cancelUnstarted(ctx, runId, 'not started: the run was aborted', { rollbackToo: true });
  const [versions, steps] = await Promise.all([ctx.store.listPlanVersions(runId), ctx.store.listSteps(runId)]);
  const undone = (version: number, stepId: string) =>
    steps.some((s) => s.kind === 'rollback' && s.planVersion === version && s.stepId === stepId && s.status === 'succeeded');
  const left = rollbackOrder(versions, steps, ctx.config.tools.riskOf).filter((planned) => !undone(planned.version, planned.step.id));
  const detail = left.length ? ` Nothing was rolled back, since an expiry runs nothing; still to undo: ${left.map((p) => p.step.title).join('; ')}.` : '';
  await finishRun(ctx, runId, 'aborted', words`${reason}${detail}`);
}
