/** How a run ends: one write (final status, summary, event, the reply it owes), then the last board and the summary reply. */
import { movesFrom } from '../model/run-moves.ts';
import type { AgentContext } from '../context.ts';
import { FINAL_RUN_STATUSES, type PlanVersionRecord, type RunStatus, type StepRecord } from '../ports/run-store.ts';
import { uncheckedSteps } from '../delivery/board.ts';
import { replacedFailures, runOutcome } from '../model/run-outcome.ts';
import { stepResult } from '../model/step-results.ts';
import { SKIPPED_BY_PERSON } from '../model/step-codes.ts';
import { changeOutput, changeUrl, checkSkipped, madeItsChange, otherChanges, skippedWhileUncertain } from '../model/step-change.ts';
import type { RunSummary } from '../ports/surface.ts';
import { OWED_LEASE_MS, owedSummary } from '../delivery/owed-delivery.ts';
import { rollbackStepsInOrder } from './rollback.ts';
import { eventsOfType } from '../model/run-events.ts';
import type { Text } from '../text/text.ts';

export type Outcome = RunSummary['outcome'];

/** Every status a run can still end from (model/run-moves.ts). */
export const NOT_FINAL: readonly RunStatus[] = movesFrom('end');

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
  const { stored } = facts;
  const summary = { ...stored, durationMs: finishedAt.getTime() - facts.createdAt.getTime() };
  const run = await ctx.store.finishRun({
    runId,
    from,
    status: outcome,
    summary: stored,
    finishedAt,
    event: { type: 'run-finished', data: { outcome, reason } },
    owe: [owedSummary(runId, summary)],
    owner: ctx.replica.owner,
    leaseMs: OWED_LEASE_MS,
  });
  if (!run) return false;
  // One writer per status board: a driver on another replica sees the run end and lets go first.
  await ctx.replica.leases.take(runId);
  try {
    await ctx.thread.owed.deliver(runId);
  } finally {
    await ctx.replica.leases.release(runId).catch(() => undefined);
  }
  return true;
}

/** What the summary says, from the store as it stands. */
async function summaryFacts(ctx: Pick<AgentContext, 'config' | 'store'>, runId: string, outcome: Outcome, reason: Text | null) {
  const source = await ctx.store.summarySource(runId);
  if (!source) return undefined;
  const { run, steps, versions, usage, usageByModel: byModel } = source;
  const models = new Set(byModel.map((entry) => entry.model)).size > 1 ? byModel : undefined;
  const [fallbackEvent] = source.lastFallback ? eventsOfType([source.lastFallback], 'planner-fallback') : [];
  const fallbackPlanner = fallbackEvent ? { author: fallbackEvent.data.author, reason: fallbackEvent.data.reason } : null;
  const inOrder = rollbackStepsInOrder(versions, steps, ctx.config.tools.riskOf);
  const rolledBack = inOrder.map((step) => ({ title: step.title, status: step.status }));
  const shown = stepsShown(versions, steps, inOrder);
  const unchecked = uncheckedSteps(source.evaluations);
  // Every change made, one whose check failed after its call went through included (model/step-change.ts).
  const earlier = await retriedChanges(ctx, runId, steps);
  const lastRan = steps.reduce((latest, step) => (step.kind === 'forward' ? Math.max(latest, step.planVersion) : latest), 0);
  const verdict = runOutcome(outcome, [
    ...replacedFailures(steps, lastRan),
    ...shown.map((step) => ({
      title: step.title,
      kind: step.kind,
      // A change whose failed check a person skipped was made: it is told as done with its check skipped, not as skipped.
      status: step.error?.code === SKIPPED_BY_PERSON && !checkSkipped(step) ? 'skipped' : step.status,
      checkSkipped: checkSkipped(step),
      skippedUncertain: skippedWhileUncertain(step),
      unchecked: step.status === 'succeeded' && unchecked.has(`${step.planVersion}/${step.stepId}`),
      madeChange: madeItsChange(step),
      madeEarlier: earlier.filter((change) => change.step === step).map((change) => change.attempt),
      key: `${step.planVersion}/${step.stepId}`,
      started: step.startedAt !== null,
      ...(step.kind === 'rollback' ? { undoes: undoneBy(versions, step) } : {}),
    })),
  ]);
  // What the person asked for: each read's answer (a skipped check's too: what it found is the news) and each change made.
  const results = shown.flatMap((step) => {
    if (step.kind !== 'forward') return [];
    if (step.risk === 'read' ? !step.output : !madeItsChange(step)) return [];
    // A call that failed after it made something names it by its address (a workflow run that concluded failure).
    const result = stepResult({ tool: step.tool, title: step.title, args: step.plannedArgs, output: changeOutput(step), risk: step.risk });
    return result ? [result] : [];
  });
  for (const { step, url } of earlier) {
    const result = stepResult({ tool: step.tool, title: step.title, args: step.plannedArgs, output: { url }, risk: step.risk });
    if (result) results.push(result);
  }
  const changes = [
    ...steps.filter((step) => step.kind === 'forward' && madeItsChange(step)).map((step) => ({ title: step.title, url: changeUrl(step) })),
    ...earlier.map(({ step, url }) => ({ title: step.title, url })),
  ];
  const fromRunbook = versions.some((version) => version.authorKind === 'runbook');
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
    verdict,
    results,
    fromRunbook,
    ran: steps.some((step) => step.kind === 'forward'),
    // Its messages may still offer Confirm and Abort, on any copy, whichever process posted them.
    ...(source.confirmsAsked ? { confirmsAsked: true } : {}),
  };
  return { stored, createdAt: run.createdAt };
}

/**
 * What earlier attempts of a retried write made elsewhere than its last one did (a first comment, then another on
 * Retry): each is still made, so each is said. Read only when some write ran more than once.
 */
async function retriedChanges(
  ctx: Pick<AgentContext, 'store'>,
  runId: string,
  steps: readonly StepRecord[],
): Promise<{ step: StepRecord; attempt: number; url: string }[]> {
  const retried = steps.filter((step) => step.kind === 'forward' && step.risk !== 'read' && step.attempt > 1);
  if (retried.length === 0) return [];
  const attempts = await ctx.store.listAttempts(runId);
  return retried.flatMap((step) => {
    const own = attempts.filter((a) => a.planVersion === step.planVersion && a.stepId === step.stepId);
    return otherChanges(step, own).map(({ attempt, url }) => ({ step, attempt, url }));
  });
}

export function isFinal(status: RunStatus): boolean {
  return FINAL_RUN_STATUSES.includes(status);
}

/**
 * The steps the outcome is told from: the forward steps of the last version that ran, the changes earlier
 * versions made (a replan keeps them), and every undo step in the order they ran.
 */
function stepsShown(versions: readonly PlanVersionRecord[], steps: readonly StepRecord[], undo: readonly StepRecord[]): StepRecord[] {
  const forward = steps.filter((step) => step.kind === 'forward');
  const last = forward.reduce((latest, step) => Math.max(latest, step.planVersion), 0);
  const order = versions.find((version) => version.version === last)?.plan.steps.map((planned) => planned.id) ?? [];
  const current = forward.filter((step) => step.planVersion === last).sort((a, b) => order.indexOf(a.stepId) - order.indexOf(b.stepId));
  const earlier = forward.filter((step) => step.planVersion < last && step.status === 'succeeded');
  return [...earlier, ...current, ...undo];
}

/** The forward step (`planVersion/stepId`) an undo step undoes, as its plan says. */
function undoneBy(versions: readonly PlanVersionRecord[], step: StepRecord): string | undefined {
  const planned = versions.find((version) => version.version === step.planVersion)?.plan.rollback.find((undo) => undo.id === step.stepId);
  return planned ? `${step.planVersion}/${planned.undoes}` : undefined;
}

/**
 * Pending and waiting steps of a stopped run will not run: they end as cancelled. Rollback steps too
 * when the run ends for good (a cancel), not when it only turns to rolling back (an Abort runs them).
 */
export async function cancelUnstarted(ctx: Pick<AgentContext, 'store'>, runId: string, reason: string, options: { rollbackToo?: boolean } = {}): Promise<void> {
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
