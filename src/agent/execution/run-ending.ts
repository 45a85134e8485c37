/** How a run ends: one write (final status, summary, event, the reply it owes), then the last board and the summary reply. */
import type { AgentContext } from '../context.ts';
import { FINAL_RUN_STATUSES, type RunStatus, type StepRecord } from '../ports/run-store.ts';
import type { RunSummary } from '../ports/surface.ts';
import { deliverOwed, OWED_LEASE_MS, owedSummary } from '../delivery/owed-delivery.ts';
import { rollbackStepsInOrder } from './rollback.ts';
import { eventsOfType } from '../model/run-events.ts';
import type { Text } from '../text/text.ts';

export type Outcome = RunSummary['outcome'];

export const NOT_FINAL: readonly RunStatus[] = ['planning', 'awaiting-approval', 'awaiting-answer', 'executing', 'paused', 'rolling-back'];

/**
 * Ends a run in one write (status, summary, finish time, `run-finished` and the summary it owes its
 * thread), then delivers what it owes. False when the run had already left `from`.
 */
export function finishRun(ctx: AgentContext, runId: string, outcome: Outcome, reason: Text | null, from: readonly RunStatus[] = NOT_FINAL): Promise<boolean> {
  return recordEnd(ctx, runId, outcome, reason, from);
}

/**
 * A person's decision moved the run to its final status: the rest of its end (summary, finish time,
 * `run-finished`, the summary it owes) in one write, then the last board and the reply. A run
 * already summed up is left alone.
 */
export async function summarizeEnded(ctx: AgentContext, runId: string, outcome: Outcome, reason: Text | null): Promise<void> {
  await recordEnd(ctx, runId, outcome, reason, [outcome]);
}

/**
 * A decision (a Reject, a cancel) ends the run in its own write and the rest of the end follows; a
 * process that stopped in between left a final run with no summary owed. At start-up those are
 * summed up (the decision's reason is in its event, not repeated here).
 */
export async function finishEndedRuns(ctx: AgentContext): Promise<void> {
  const ended = await ctx.store.listRuns({ limit: 200, statuses: FINAL_RUN_STATUSES });
  for (const run of ended) {
    if (!run.finishedAt) await summarizeEnded(ctx, run.id, run.status as Outcome, null);
  }
}

async function recordEnd(ctx: AgentContext, runId: string, outcome: Outcome, reason: Text | null, from: readonly RunStatus[]): Promise<boolean> {
  const facts = await summaryFacts(ctx, runId, outcome, reason);
  if (!facts) return false;
  const finishedAt = ctx.now();
  const summary = { ...facts.stored, durationMs: finishedAt.getTime() - facts.createdAt.getTime() };
  const run = await ctx.store.finishRun({
    runId,
    from,
    status: outcome,
    summary: facts.stored,
    finishedAt,
    event: { type: 'run-finished', data: { outcome, reason } },
    owe: [owedSummary(runId, summary)],
    owner: ctx.owner,
    leaseMs: OWED_LEASE_MS,
  });
  if (!run) return false;
  // One writer per status board: a driver on another replica sees the run end and lets go first.
  await ctx.leases.take(runId);
  try {
    await deliverOwed(ctx, runId);
  } finally {
    await ctx.leases.release(runId).catch(() => undefined);
  }
  return true;
}

/** What the summary says, from the store as it stands. */
async function summaryFacts(ctx: AgentContext, runId: string, outcome: Outcome, reason: Text | null) {
  const source = await ctx.store.summarySource(runId);
  if (!source) return undefined;
  const { run, steps, versions, usage, usageByModel: byModel } = source;
  const models = new Set(byModel.map((entry) => entry.model)).size > 1 ? byModel : undefined;
  const [fallbackEvent] = source.lastFallback ? eventsOfType([source.lastFallback], 'planner-fallback') : [];
  const fallbackPlanner = fallbackEvent ? { author: fallbackEvent.data.author, reason: fallbackEvent.data.reason } : null;
  const changes = steps
    .filter((step) => step.kind === 'forward' && step.status === 'succeeded' && step.risk !== 'read')
    .map((step) => ({ title: step.title, url: urlOf(step) }));
  const rolledBack = rollbackStepsInOrder(versions, steps, ctx.tools.riskOf).map((step) => ({ title: step.title, status: step.status }));
  // A run that ended before any plan existed is summed up by what was asked.
  const goal = versions.at(-1)?.plan.goal ?? run.task;
  const stored = {
    outcome,
    reason,
    goal,
    changes,
    rolledBack,
    tokens: { input: usage.inputTokens, output: usage.outputTokens },
    costUsd: usage.costUsd,
    models,
    fallbackPlanner,
  };
  return { stored, createdAt: run.createdAt };
}

export function isFinal(status: RunStatus): boolean {
  return FINAL_RUN_STATUSES.includes(status);
}

function urlOf(step: StepRecord): string | null {
  return typeof step.output?.url === 'string' ? step.output.url : null;
}

/**
 * Pending and waiting steps of a stopped run will not run: they end as cancelled. Rollback steps too
 * when the run ends for good (a cancel), not when it only turns to rolling back (an Abort runs them).
 */
export async function cancelUnstarted(ctx: AgentContext, runId: string, reason: string, options: { rollbackToo?: boolean } = {}): Promise<void> {
  const steps = await ctx.store.listSteps(runId);
  for (const step of steps) {
    if ((step.kind !== 'forward' && !options.rollbackToo) || (step.status !== 'pending' && step.status !== 'waiting')) continue;
    await ctx.store.setStepStatus({
      runId,
      planVersion: step.planVersion,
      stepId: step.stepId,
      from: ['pending', 'waiting'],
      to: 'cancelled',
      error: { message: reason },
    });
  }
}
