/** How a run ends: one final status, a stored summary, the last board, and the summary reply. */
import { reportBoard } from './board.ts';
import type { AgentContext } from './context.ts';
import { FINAL_RUN_STATUSES, type RunStatus, type StepRecord } from './ports/run-store.ts';
import type { RunSummary } from './ports/surface.ts';
import { rollbackStepsInOrder } from './rollback.ts';

export type Outcome = RunSummary['outcome'];

export const NOT_FINAL: readonly RunStatus[] = ['planning', 'awaiting-approval', 'awaiting-answer', 'executing', 'paused', 'rolling-back'];

export async function finishRun(ctx: AgentContext, runId: string, outcome: Outcome, reason: string | null, from: readonly RunStatus[] = NOT_FINAL): Promise<boolean> {
  if (!(await ctx.store.transitionRun(runId, from, outcome))) return false;
  await summarizeEnded(ctx, runId, outcome, reason);
  return true;
}

/** After the run reached its final status (here, or in a person's decision): the summary, the last board, the reply. */
export async function summarizeEnded(ctx: AgentContext, runId: string, outcome: Outcome, reason: string | null): Promise<void> {
  // One writer per status board: a driver on another replica sees the run end and lets go first.
  await ctx.leases.take(runId);
  try {
    await summarize(ctx, runId, outcome, reason);
  } finally {
    await ctx.leases.release(runId).catch(() => undefined);
  }
}

async function summarize(ctx: AgentContext, runId: string, outcome: Outcome, reason: string | null): Promise<void> {
  const steps = await ctx.store.listSteps(runId);
  const versions = await ctx.store.listPlanVersions(runId);
  const usage = await ctx.store.usageTotals(runId);
  const byModel = await ctx.store.usageByModel(runId);
  const models = new Set(byModel.map((entry) => entry.model)).size > 1 ? byModel : undefined;
  const fallbackEvent = (await ctx.store.listEvents(runId)).findLast((event) => event.type === 'planner-fallback');
  const fallbackPlanner = fallbackEvent ? { author: String(fallbackEvent.data.author), reason: String(fallbackEvent.data.reason) } : null;
  const finishedAt = ctx.now();
  const changes = steps
    .filter((step) => step.kind === 'forward' && step.status === 'succeeded' && step.risk !== 'read')
    .map((step) => ({ title: step.title, url: urlOf(step) }));
  const rolledBack = rollbackStepsInOrder(versions, steps, ctx.tools.riskOf)
    .map((step) => ({ title: step.title, status: step.status }));
  // A run that ended before any plan existed is summed up by what was asked.
  const task = versions.length ? '' : ((await ctx.store.getRun(runId))?.task ?? '');
  const goal = versions.at(-1)?.plan.goal ?? task;
  const stored = { outcome, reason, goal, changes, rolledBack, tokens: { input: usage.inputTokens, output: usage.outputTokens }, costUsd: usage.costUsd, models, fallbackPlanner };
  const run = await ctx.store.updateRun(runId, { summary: stored, finishedAt });
  await ctx.store.appendEvent(runId, 'run-finished', { outcome, reason });
  await reportBoard(ctx, runId);
  await ctx.surface.finish({
    run,
    outcome,
    goal,
    reason,
    changes,
    rolledBack,
    durationMs: finishedAt.getTime() - run.createdAt.getTime(),
    tokens: { input: usage.inputTokens, output: usage.outputTokens },
    costUsd: usage.costUsd,
    models,
    fallbackPlanner,
  });
}

export function isFinal(status: RunStatus): boolean {
  return FINAL_RUN_STATUSES.includes(status);
}

function urlOf(step: StepRecord): string | null {
  return typeof step.output?.url === 'string' ? step.output.url : null;
}

/** Pending and waiting steps of a stopped run will not run: they end as cancelled. */
export async function cancelUnstarted(ctx: AgentContext, runId: string, reason: string): Promise<void> {
  const steps = await ctx.store.listSteps(runId);
  for (const step of steps) {
    if (step.kind !== 'forward' || (step.status !== 'pending' && step.status !== 'waiting')) continue;
    await ctx.store.setStepStatus({ runId, planVersion: step.planVersion, stepId: step.stepId, from: ['pending', 'waiting'], to: 'cancelled', error: { message: reason } });
  }
}
