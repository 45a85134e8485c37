/**
 * What happens when a step fails: a possible side effect, a failure no new plan can fix (a host or
 * repository not allowed, a missing credential), a failed check, or a failed write or destructive step
 * goes to a person; a failed read step gets a new plan for the remaining work while
 * the budget allows (the new version's reason says which step failed and why), else a person.
 */
import type { AgentContext } from '../context.ts';
import { escalate } from './escalation.ts';
import { replanBlocked } from './escalation-offer.ts';
import { unfixableFailure } from './unfixable-failures.ts';
import { makePlan } from '../planning/planner.ts';
import { addPlannedVersion, plannerDeps } from '../planning/plan-run.ts';
import type { ExecutedStepSummary } from '../planning/planner-prompt.ts';
import type { RunRecord, RunStatus, StepRecord } from '../ports/run-store.ts';
import { proposeVersion } from '../planning/propose-version.ts';
import { completedStepIds } from './steps/step-facts.ts';
import { type Text, words } from '../text/text.ts';

/** What the supervisor did with a failure: a person was asked (the run goes on around it), or a new plan is wanted. */
export type HandOver = { kind: 'escalated' } | { kind: 'replan'; reason: Text };

/**
 * Decides, at once, what a failed or uncertain step of an executing run calls for. Every failure that
 * needs a person gets its own escalation while the run keeps executing what does not depend on it
 * (the driver pauses the run once nothing else can go on). A failed read step asks for a new plan
 * only while no other failure waits for a person: a new plan would close their escalations unasked.
 */
export async function handOverFailure(
  ctx: AgentContext,
  run: RunRecord,
  version: number,
  failed: StepRecord,
  options: { othersWaiting: boolean },
): Promise<HandOver> {
  const message = failed.error?.message ?? 'failed without a message';
  const base = { runId: run.id, planVersion: version, stepId: failed.stepId, pauseFrom: [], board: false };
  if (failed.status === 'uncertain') {
    await escalate(ctx, { ...base, kind: 'uncertain-side-effect', message: `${failed.stepId} (${failed.tool}) may or may not have taken effect: ${message}` });
    return ESCALATED;
  }
  const unfixable = unfixableFailure(failed.error);
  if (unfixable) {
    // A host or repository not allowed, a missing credential: a new plan cannot fix it, so the replan budget is kept.
    await escalate(ctx, { ...base, kind: 'step-failed', message: `${failed.stepId} (${failed.title}) was not run: ${message}` });
    return ESCALATED;
  }
  if (failed.error?.code === 'evaluation-failed') {
    await escalate(ctx, { ...base, kind: 'evaluation-failed', message: `${failed.stepId} (${failed.title}) ran but its result failed the check: ${message}` });
    return ESCALATED;
  }
  if (failed.risk !== 'read') {
    // A failed change (a deploy that concluded `failure`, a merge GitHub refused) is a person's call, not the planner's.
    await escalate(ctx, { ...base, kind: 'step-failed', message: `${failed.stepId} (${failed.title}) is a ${failed.risk} step and it failed: ${message}` });
    return ESCALATED;
  }
  const limit = options.othersWaiting ? 'another step waits for a person' : await replanBlocked(ctx, run);
  if (!limit) return { kind: 'replan', reason: `${failed.stepId} (${failed.title}) failed: ${message}` };
  await escalate(ctx, { ...base, kind: 'step-failed', message: words`${failed.stepId} (${failed.title}) failed: ${message}. No automatic replan: ${limit}.` });
  return ESCALATED;
}

const ESCALATED: HandOver = { kind: 'escalated' };

/** A new plan version for the remaining work, authored by the planner with a reason. */
export async function replan(ctx: AgentContext, runId: string, reason: Text, from: readonly RunStatus[]): Promise<void> {
  if (!(await ctx.store.transitionRun(runId, from, 'planning'))) return;
  await ctx.store.appendEvent(runId, 'replan-started', { reason });
  const run = await ctx.store.getRun(runId);
  if (!run?.currentPlanVersion) return;
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
    await escalate(ctx, {
      runId,
      planVersion: previous.version,
      stepId: null,
      kind: 'replan-failed',
      message: words`I needed a new plan (${reason}) but could not make one: ${planned.error.message}`,
      pauseFrom: ['planning'],
    });
    return;
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
  await proposeVersion(ctx, record, { from: ['planning'], kind: 'replan' });
}

/** An exception's first line, cut: it may quote a whole prompt. */
function firstLine(message: string): string {
  const line = message.split('\n')[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
