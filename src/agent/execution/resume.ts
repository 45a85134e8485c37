/**
 * After a crash or restart (the wiring's run-adoption.ts decides what each adopted run needs): an executing
 * run goes back to a driver, and every step left `running` by a dead owner is settled before the run
 * goes on. A read step runs again. A write or destructive step is never repeated blindly: the
 * tool's reconcile() says whether it happened; without a clear answer a person decides.
 */
import type { AgentContext } from '../context.ts';
import { escalate } from './escalation.ts';
import { limitOutput } from '../text/output-limit.ts';
import type { RunRecord, StepRecord } from '../ports/run-store.ts';
import { awaitsConfirm } from './rollback.ts';
import { isOrphaned, READ_RUNS_AGAIN, requeueInterruptedReads, runsAgain } from './interrupted-reads.ts';
import { drive, type Effect } from '../ports/effects.ts';

/**
 * Executing runs made ready to go back to drivers, all together: after a crash with a thousand runs open, one
 * write puts back every interrupted read and one records every adoption, where a run at a time cost each run
 * several statements before its step could start again. A write left running is each driver's to settle.
 * Returns the drives for the wiring to perform while it still holds the adopted runs' leases (none when the
 * store refused: the runs are adopted again on the next scan).
 */
export async function readyToDriveAgain(
  ctx: Pick<AgentContext, 'store' | 'config' | 'replica' | 'logger' | 'now'>,
  runs: readonly RunRecord[],
): Promise<Effect[]> {
  if (runs.length === 0) return [];
  try {
    await requeueInterruptedReads(ctx, runs);
    await ctx.store.appendToRuns(runs.map((run) => ({ runId: run.id, event: { type: 'run-adopted', data: { by: ctx.replica.owner, status: run.status } } })));
    return runs.map((run) => drive(run.id));
  } catch (error) {
    ctx.logger.error({ runs: runs.length, err: error }, 'could not resume runs');
    return [];
  }
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
export async function rollbackAwaitsConfirm(ctx: Pick<AgentContext, 'store'>, runId: string): Promise<boolean> {
  const [steps, confirmations] = await Promise.all([ctx.store.listSteps(runId), ctx.store.listConfirmations(runId)]);
  return steps.some((step) => awaitsConfirm(step, confirmations));
}
