/** Runs the sweep finds stuck: a step running far past its limit, or a run that waits for nobody. */
import type { AgentContext } from '../context.ts';
import type { RunRecord } from '../ports/run-store.ts';
import { escalate } from '../execution/escalation.ts';
import { drive, type Effect } from '../ports/effects.ts';
import type { Wait } from './wait.ts';

const MINUTE = 60_000;

/**
 * A run that waits for nobody: paused with no open wait (openWaits) and no waiting step is handed to a
 * person with Retry / Abort; an executing run on a store this process has alone gets its driver back (a
 * live one is only woken), which goes on or, failing again and again, escalates. That drive is returned, for the
 * wiring to perform (it takes no lease here: the driver claims the run itself).
 */
export async function findHangingRun(ctx: AgentContext, run: RunRecord, waits: readonly Wait[]): Promise<Effect[]> {
  if (run.status === 'executing' && ctx.replica.soleOwner) return [drive(run.id)];
  if (run.status !== 'paused' || waits.length > 0) return [];
  if ((await ctx.store.listSteps(run.id)).some((step) => step.status === 'waiting')) return [];
  // The run changed meanwhile (an answer resumed it): the escalation would be about nothing.
  if ((await ctx.store.getRun(run.id))?.status !== 'paused') return [];
  await escalate(ctx, {
    runId: run.id,
    planVersion: run.currentPlanVersion,
    stepId: null,
    kind: 'driver-failed',
    message: 'the run was paused with nothing left for anyone to answer',
    pauseFrom: [],
  });
  return [];
}

/** The executor times a step out after TANDEM_STEP_TIMEOUT_S; one running twice that long was probably left by a dead process. */
export async function reportStuckSteps(ctx: AgentContext, run: RunRecord, now: Date): Promise<void> {
  const limitMs = 2 * ctx.config.settings.budgets.stepTimeoutS * 1000;
  const stuck = (await ctx.store.listSteps(run.id)).filter(
    (step) => step.status === 'running' && step.startedAt && now.getTime() - step.startedAt.getTime() > limitMs,
  );
  for (const step of stuck) {
    const key = `v${step.planVersion}/${step.stepId}#${step.attempt}`;
    if (!(await ctx.store.claimReminder({ runId: run.id, kind: 'stuck-step', key }))) continue;
    const runningMin = Math.floor((now.getTime() - step.startedAt!.getTime()) / MINUTE);
    ctx.logger.warn(
      { runId: run.id, planVersion: step.planVersion, stepId: step.stepId, attempt: step.attempt, leaseOwner: step.leaseOwner, runningMin },
      'step looks stuck',
    );
    await ctx.thread.surface.notify(
      run,
      `Step ${step.stepId} (${step.title}) has been running for ${runningMin} minutes, more than twice its ${ctx.config.settings.budgets.stepTimeoutS}-second limit; the process running it may have died. ` +
        'Once its lease runs out another replica adopts the run (or a restart picks it up) and settles the step: a read runs again, and a write that may have happened is checked or handed to you to decide.',
    );
  }
}
