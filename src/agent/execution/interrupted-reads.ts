/**
 * After a restart with many runs open, the reads their dead owners left running are put back for all of
 * them in one read and one write, before the drivers start: each driver then finds nothing of its own to
 * settle and starts at once. Writes (and reads of a tool that no longer calls itself a read) stay for
 * each run's driver, which reconciles them or asks a person (resume.ts).
 */
import type { AgentContext } from '../context.ts';
import type { RunRecord, StepRecord } from '../ports/run-store.ts';

/** A step left running by an owner that is gone: its lease ran out, it is ours from before a restart, or we are alone. */
export function isOrphaned(ctx: Pick<AgentContext, 'replica'>, step: StepRecord, now: Date): boolean {
  if (step.status !== 'running') return false;
  const alive = !ctx.replica.soleOwner && step.leaseOwner && step.leaseOwner !== ctx.replica.owner && step.leaseUntil && step.leaseUntil > now;
  return !alive;
}

export const READ_RUNS_AGAIN = 'a read step runs again';

/** A read (as planned and as the tool declares itself) simply runs again; anything else is reconciled. */
export function runsAgain(ctx: Pick<AgentContext, 'config'>, step: StepRecord): boolean {
  return step.risk === 'read' && ctx.config.tools.get(step.tool)?.risk === 'read';
}

export async function requeueInterruptedReads(ctx: Pick<AgentContext, 'store' | 'config' | 'replica' | 'now'>, runs: readonly RunRecord[]): Promise<void> {
  if (runs.length === 0) return;
  const now = ctx.now();
  const reads = (await ctx.store.listRunningSteps(runs.map((run) => run.id))).filter((step) => isOrphaned(ctx, step, now) && runsAgain(ctx, step));
  await ctx.store.requeueInterrupted(
    reads.map(({ runId, planVersion, stepId, attempt }) => ({ runId, planVersion, stepId, attempt })),
    READ_RUNS_AGAIN,
  );
}
