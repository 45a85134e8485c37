/**
 * Part of the wiring: what each run this replica adopts needs, after a restart or when a peer died. An executing
 * run goes back to a driver (execution/resume.ts), a rollback is carried on and the run aborted (decisions), a run
 * whose planner died is planned again (planning). Only the wiring may reach all three.
 */
import type { AgentContext } from './context.ts';
import type { RunRecord } from './ports/run-store.ts';
import { abortRun } from './decisions/run-abort.ts';
import { resumeInterruptedChange } from './decisions/interrupted-change.ts';
import { planRun } from './planning/plan-run.ts';
import { replan } from './planning/replan.ts';
import { readyToDriveAgain, recoverRunningSteps, rollbackAwaitsConfirm } from './execution/resume.ts';
import { decided, inBackground, type Effect } from './ports/effects.ts';
import { performNext } from './effects-runner.ts';

/**
 * At start-up, and every few seconds after when replicas share the database: continue the runs
 * nobody drives. Alone on the store that is every executing run; with peers, only runs whose lease
 * is free or ran out (their replica died or let go), taken with the lease so no two replicas adopt one.
 * An executing run goes to a driver, which settles steps the dead owner left running before going on;
 * a run whose replica died while planning it is planned again.
 */
export async function resumeRuns(ctx: AgentContext, options: { startUp: boolean }): Promise<void> {
  const statuses = ['executing', 'rolling-back', 'planning'] as const;
  // Alone on the store, anything left executing or planning at start-up is from a process that stopped.
  const runs = ctx.replica.soleOwner
    ? options.startUp
      ? await ctx.store.listRuns({ limit: 1000, statuses })
      : []
    : await ctx.replica.leases.adopt(statuses, { startUp: options.startUp });
  const executing = runs.filter((run) => run.status === 'executing');
  for (const effect of await readyToDriveAgain(ctx, executing)) await ctx.effects.perform(effect);
  // The adoption's own hold, let go once each driver started above holds the lease for itself.
  for (const run of executing) await ctx.replica.leases.release(run.id).catch(() => undefined);
  for (const run of runs.filter((run) => run.status !== 'executing')) {
    try {
      if (run.status === 'rolling-back') {
        // Waiting for a person's Confirm of a rollback step: their click carries the rollback on, not this scan.
        if (await rollbackAwaitsConfirm(ctx, run.id)) continue;
        await recoverRunningSteps(ctx, run);
        await ctx.effects.perform(abortRun(run.id, 'Aborted (rollback continued after a restart).'));
      } else await planAdopted(ctx, run);
    } catch (error) {
      ctx.logger.error({ runId: run.id, err: error }, 'could not resume run');
    } finally {
      // The adoption's own hold: the planner started above holds the lease for itself.
      await ctx.replica.leases.release(run.id).catch(() => undefined);
    }
  }
}

/**
 * A run adopted while planning: a person's change cut short is carried on, else it is planned again in the background.
 * What either returns (an auto-run plan's drive) is performed under the adoption's hold, or the planner's.
 */
async function planAdopted(ctx: AgentContext, run: RunRecord): Promise<void> {
  await ctx.store.appendEvent(run.id, 'run-adopted', { by: ctx.replica.owner, status: run.status });
  // Before the inbox replays the person's click, which needs the plan waiting again if the change never landed.
  const change = await resumeInterruptedChange(ctx, run);
  if (change) return performNext(ctx, decided(undefined, change));
  await ctx.effects.perform(
    inBackground(
      'planning an adopted run',
      ctx.replica.leases.during(run.id, async () => performNext(ctx, decided(undefined, await planAgain(ctx, run)))),
      run.id,
    ),
  );
}

/** The replica planning this run died: a first plan is made again (with any answers so far), a replan is redone; returns what should happen next. */
async function planAgain(ctx: AgentContext, run: RunRecord): Promise<Effect[]> {
  if (run.currentPlanVersion !== null) return replan(ctx, run.id, 'the replica that was planning this run stopped', ['planning']);
  const answers = (await ctx.store.listQuestions(run.id))
    .filter((q) => q.stepId === null && q.answer !== null)
    .map((q) => ({ question: q.question, answer: q.answer!, answeredBy: q.answeredBy }));
  return planRun(ctx, run, answers.length ? { answers } : {});
}
