/** Ending a run as aborted: by a person's Abort (its rollback runs), or by an expiry (nothing more runs). */
import type { AgentContext } from '../context.ts';
import { cancelUnstarted, finishRun } from '../execution/run-ending.ts';
import { rollBack, rollbackOrder, rollbackStepsInOrder } from '../execution/rollback.ts';
import { movesFrom } from '../model/run-moves.ts';
import { stopDriver } from '../ports/effects.ts';
import { type Text, words } from '../text/text.ts';

/** Stop everything, roll back what succeeded (newest first), and end the run as aborted. */
export function abortRun(ctx: AgentContext, runId: string, reason: Text): Promise<void> {
  return whileStopped(ctx, runId, () => rollBackAndFinish(ctx, runId, reason));
}

/**
 * End the run as aborted and run nothing more, not even its rollback: what a Confirm nobody answered in time does
 * (CONTRACT §5: expiry never runs anything; nobody is there to watch an undo). The summary names the undos left,
 * for a person to do or to ask for in a new run.
 */
export function abortUnattended(ctx: AgentContext, runId: string, reason: Text): Promise<void> {
  return whileStopped(ctx, runId, () => finishUnattended(ctx, runId, reason));
}

/** Runs `end` once no driver runs the run: stopped here, and one on another replica lets go when the run leaves `executing`. */
async function whileStopped(ctx: AgentContext, runId: string, end: () => Promise<void>): Promise<void> {
  await ctx.effects.perform(stopDriver(runId, 'abort'));
  await ctx.store.transitionRun(runId, movesFrom('roll-back'), 'rolling-back');
  await ctx.replica.leases.take(runId);
  try {
    await end();
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
