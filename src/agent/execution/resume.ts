/**
 * After a crash or restart: every step left `running` by a dead owner is settled before the run
 * goes on. A read step runs again. A write or destructive step is never repeated blindly: the
 * tool's reconcile() says whether it happened; without a clear answer a person decides.
 */
import type { AgentContext } from '../context.ts';
import { escalate } from './escalation.ts';
import { limitOutput } from '../text/output-limit.ts';
import type { RunRecord, StepRecord } from '../ports/run-store.ts';
import { abortRun } from '../decisions/escalation-resolution.ts';
import { resumeInterruptedChange } from '../decisions/interrupted-change.ts';
import { awaitsConfirm } from './rollback.ts';
import { planRun } from '../planning/plan-run.ts';
import { replan } from './supervisor.ts';
import { isOrphaned, READ_RUNS_AGAIN, requeueInterruptedReads, runsAgain } from './interrupted-reads.ts';
import { drive, inBackground } from '../ports/effects.ts';

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
  await driveAgain(
    ctx,
    runs.filter((run) => run.status === 'executing'),
  );
  for (const run of runs.filter((run) => run.status !== 'executing')) {
    try {
      if (run.status === 'rolling-back') {
        // Waiting for a person's Confirm of a rollback step: their click carries the rollback on, not this scan.
        if (await rollbackAwaitsConfirm(ctx, run.id)) continue;
        await recoverRunningSteps(ctx, run);
        await abortRun(ctx, run.id, 'Aborted (rollback continued after a restart).');
      } else {
        await ctx.store.appendEvent(run.id, 'run-adopted', { by: ctx.replica.owner, status: run.status });
        // Before the inbox replays the person's click, which needs the plan waiting again if the change never landed.
        if (await resumeInterruptedChange(ctx, run)) continue;
        await ctx.effects.perform(
          inBackground(
            'planning an adopted run',
            ctx.replica.leases.during(run.id, () => planAgain(ctx, run)),
            run.id,
          ),
        );
      }
    } catch (error) {
      ctx.logger.error({ runId: run.id, err: error }, 'could not resume run');
    } finally {
      // The adoption's own hold: the planner started above holds the lease for itself.
      await ctx.replica.leases.release(run.id).catch(() => undefined);
    }
  }
}

/**
 * Executing runs go back to drivers, all together: after a crash with a thousand runs open, one write
 * puts back every interrupted read and one records every adoption, where a run at a time cost each run
 * several statements before its step could start again. A write left running is each driver's to settle.
 */
async function driveAgain(ctx: AgentContext, runs: readonly RunRecord[]): Promise<void> {
  if (runs.length === 0) return;
  let recorded = false;
  try {
    await requeueInterruptedReads(ctx, runs);
    await ctx.store.appendToRuns(runs.map((run) => ({ runId: run.id, event: { type: 'run-adopted', data: { by: ctx.replica.owner, status: run.status } } })));
    recorded = true;
  } catch (error) {
    ctx.logger.error({ runs: runs.length, err: error }, 'could not resume runs');
  }
  for (const run of runs) {
    if (recorded) await ctx.effects.perform(drive(run.id));
    // The adoption's own hold: the driver started above holds the lease for itself.
    await ctx.replica.leases.release(run.id).catch(() => undefined);
  }
}

/** The replica planning this run died: a first plan is made again (with any answers so far), a replan is redone. */
async function planAgain(ctx: AgentContext, run: RunRecord): Promise<void> {
  if (run.currentPlanVersion !== null) return replan(ctx, run.id, 'the replica that was planning this run stopped', ['planning']);
  const answers = (await ctx.store.listQuestions(run.id))
    .filter((q) => q.stepId === null && q.answer !== null)
    .map((q) => ({ question: q.question, answer: q.answer!, answeredBy: q.answeredBy }));
  await planRun(ctx, run, answers.length ? { answers } : {});
}

/**
 * Settles steps left running by a dead owner (lease expired, or our own from before a restart); true when
 * one needed a person (it has its own escalation; the run goes on around it). `listed`: the run's step rows, when the caller just read them.
 */
export async function recoverRunningSteps(ctx: AgentContext, run: RunRecord, listed?: readonly StepRecord[]): Promise<boolean> {
  const now = ctx.now();
  const steps = listed ?? (await ctx.store.listSteps(run.id));
  const orphans = steps.filter((step) => isOrphaned(ctx, step, now));
  if (orphans.length === 0) return false;
  const attempts = await ctx.store.listAttempts(run.id);
  let escalated = false;
  for (const step of orphans) {
    const attempt = attempts.find((a) => a.planVersion === step.planVersion && a.stepId === step.stepId && a.attempt === step.attempt);
    const outcome = await reconcile(ctx, run, step, attempt?.executedArgs ?? step.plannedArgs, attempt?.startedAt ?? step.startedAt ?? now);
    const key = { runId: run.id, planVersion: step.planVersion, stepId: step.stepId, attempt: step.attempt };
    if (outcome.status === 'done') {
      await ctx.store.finishStep({ ...key, status: 'succeeded', output: limitOutput(outcome.output, ctx.config.settings.secrets) });
      await ctx.store.appendEvent(run.id, 'step-reconciled', { ...key, found: 'done' });
    } else if (outcome.status === 'rerun') {
      if (await ctx.store.finishStep({ ...key, status: 'cancelled', error: { message: `interrupted by a restart (${outcome.why})` } })) {
        await ctx.store.setStepStatus({ runId: run.id, planVersion: step.planVersion, stepId: step.stepId, from: ['cancelled'], to: 'pending' });
      }
      await ctx.store.appendEvent(run.id, 'step-requeued', { ...key, why: outcome.why });
    } else {
      const message = `${step.stepId} (${step.tool}) was running when the process stopped and I cannot tell whether it took effect: ${outcome.why}`;
      await ctx.store.finishStep({ ...key, status: 'uncertain', error: { message, uncertain: true } });
      if (step.kind === 'forward') {
        await escalate(ctx, {
          runId: run.id,
          planVersion: step.planVersion,
          stepId: step.stepId,
          kind: 'uncertain-side-effect',
          message,
          // The run goes on around this wait: its driver pauses it once nothing else can go on.
          pauseFrom: [],
        });
        escalated = true;
      }
    }
  }
  return escalated;
}

type Recovery = { status: 'done'; output: Record<string, unknown> } | { status: 'rerun'; why: string } | { status: 'ask'; why: string };

async function reconcile(ctx: AgentContext, run: RunRecord, step: StepRecord, args: Record<string, unknown>, startedAt: Date): Promise<Recovery> {
  const tool = ctx.config.tools.get(step.tool);
  if (runsAgain(ctx, step)) return { status: 'rerun', why: READ_RUNS_AGAIN };
  if (!tool?.reconcile) return { status: 'ask', why: `${step.tool} cannot check whether it already ran` };
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) return { status: 'ask', why: 'the recorded args no longer pass the tool schema' };
  try {
    const result = await tool.reconcile(parsed.data, {
      runId: run.id,
      stepId: step.stepId,
      planVersion: step.planVersion,
      attempt: step.attempt,
      marker: `tandem:${run.id}/${step.stepId}`,
      startedAt,
      signal: AbortSignal.timeout(60_000),
      progress: () => undefined,
      log: { info: (obj, msg) => ctx.logger.info(obj, msg), warn: (obj, msg) => ctx.logger.warn(obj, msg) },
    });
    if (result.status === 'done') return { status: 'done', output: result.output };
    if (result.status === 'not-done') return { status: 'rerun', why: `${step.tool} confirmed it had not happened` };
    return { status: 'ask', why: result.reason };
  } catch (error) {
    return { status: 'ask', why: `reconcile failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** A rollback step waits for a Confirm nobody answered yet (after an Abort of it, the rollback must go on). */
async function rollbackAwaitsConfirm(ctx: AgentContext, runId: string): Promise<boolean> {
  const [steps, confirmations] = await Promise.all([ctx.store.listSteps(runId), ctx.store.listConfirmations(runId)]);
  return steps.some((step) => awaitsConfirm(step, confirmations));
}
