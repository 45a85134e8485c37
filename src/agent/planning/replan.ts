/**
 * A new plan version for the remaining work of a run whose plan no longer fits: a failed read step (asked by
 * the executor as the `replan` effect), a person's "new plan" on an escalation, or a replica that died while
 * replanning. The executed steps and the reason go to the planner; a planner that fails pauses the run for a person.
 */
import type { AgentContext } from '../context.ts';
import { escalate } from '../execution/escalation.ts';
import { completedStepIds } from '../execution/steps/step-facts.ts';
import type { RunStatus, StepStatus } from '../ports/run-store.ts';
import type { Effect } from '../ports/effects.ts';
import { type Text, words } from '../text/text.ts';
import { makePlan } from './planner.ts';
import type { ExecutedStepSummary } from './planner-prompt.ts';
import { addPlannedVersion, plannerDeps } from './plan-run.ts';
import { proposeVersion } from './propose-version.ts';

/** A new plan version for the remaining work, authored by the planner with a reason; returns what should happen next (proposeVersion). */
export async function replan(ctx: AgentContext, runId: string, reason: Text, from: readonly RunStatus[]): Promise<Effect[]> {
  if (!(await ctx.store.transitionRun(runId, from, 'planning'))) return [];
  await ctx.store.appendEvent(runId, 'replan-started', { reason });
  const run = await ctx.store.getRun(runId);
  if (!run?.currentPlanVersion) return [];
  // The thread shows the planner at work, as it does for a first plan or a revision.
  await ctx.thread.surface.planning(run);
  const previous = (await ctx.store.getPlanVersion(runId, run.currentPlanVersion))!;
  const steps = await ctx.store.listSteps(runId);
  const executed: ExecutedStepSummary[] = steps
    .filter((step) => step.kind === 'forward' && step.status !== 'pending')
    .map((step) => ({
      planVersion: step.planVersion,
      id: step.stepId,
      title: step.title,
      tool: step.tool,
      status: step.status,
      output: step.output,
      error: step.error?.message ?? null,
    }));
  // A planner that throws (a bug, an unexpected answer) is a failed replan like any other: the run is paused
  // for a person. Left in `planning`, a peer would adopt it and replan it again, for ever.
  const planned = await makePlan(
    plannerDeps(ctx, runId),
    { task: run.task, requester: run.requester, origin: run.origin, runId, replan: { reason, previousPlan: previous.plan, executed } },
    { completedSteps: completedStepIds(steps) },
  ).catch((error: unknown) => ({ ok: false as const, error: { message: firstLine(error instanceof Error ? error.message : String(error)) } }));
  if (!planned.ok) {
    // The failures that asked for the new plan are still there: each is escalated on its own, so a person can
    // Retry or Skip it, ask for a new plan again, or Abort. With none (a version that could not run, a replica
    // that died while planning) the run as a whole waits.
    const failed = steps.filter((step) => step.planVersion === previous.version && step.kind === 'forward' && UNRESOLVED.has(step.status));
    for (const stepId of failed.length ? failed.map((step) => step.stepId) : [null])
      await escalate(ctx, {
        runId,
        planVersion: previous.version,
        stepId,
        kind: 'replan-failed',
        message: words`I needed a new plan (${reason}) but could not make one: ${planned.error.message}`,
        pauseFrom: ['planning'],
      });
    return [];
  }
  for (const step of steps) {
    if (step.planVersion === previous.version && step.kind === 'forward' && step.status === 'pending') {
      await ctx.store.setStepStatus({
        runId,
        planVersion: step.planVersion,
        stepId: step.stepId,
        from: ['pending'],
        to: 'skipped',
        // Why is said once, on the new version.
        error: { message: 'replaced by a new plan' },
      });
    }
  }
  const record = await addPlannedVersion(ctx, {
    runId,
    planned: planned.value,
    parentVersion: previous.version,
    reason: words`replan: ${reason}`,
    proposed: { replans: run.replans + 1 },
  });
  return proposeVersion(ctx, record, { from: ['planning'], kind: 'replan' });
}

/** A step's failure a person has not answered yet (a Retry puts it back to pending, a Skip moves it on). */
const UNRESOLVED: ReadonlySet<StepStatus> = new Set(['failed', 'uncertain']);

/** An exception's first line, cut: it may quote a whole prompt. */
function firstLine(message: string): string {
  const line = message.split('\n')[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
