/**
 * What happens when a step fails: a possible side effect, a failed check, or a failed write or
 * destructive step goes to a person; a failed read step gets a new plan for the remaining work while
 * the budget allows (the new version's reason says which step failed and why), else a person.
 */
import type { AgentContext } from '../context.ts';
import { escalate } from './escalation.ts';
import type { Plan } from '../model/plan.ts';
import { makePlan } from '../planning/planner.ts';
import { addPlannedVersion, plannerDeps } from '../planning/plan-run.ts';
import type { ExecutedStepSummary } from '../planning/planner-prompt.ts';
import type { RunRecord, RunStatus, StepRecord } from '../ports/run-store.ts';
import { proposeVersion } from '../planning/propose-version.ts';
import { REPO_NOT_ALLOWED } from '../model/repository-allow-list.ts';
import { replanLimits } from '../model/budgets.ts';
import { completedStepIds } from './step-facts.ts';
import { type Text, words } from '../text/text.ts';

export async function onStepFailure(ctx: AgentContext, run: RunRecord, _plan: Plan, version: number, failed: StepRecord): Promise<void> {
  const message = failed.error?.message ?? 'failed without a message';
  const base = { runId: run.id, planVersion: version, stepId: failed.stepId };
  if (failed.status === 'uncertain') {
    await escalate(ctx, {
      ...base,
      kind: 'uncertain-side-effect',
      message: `${failed.stepId} (${failed.tool}) may or may not have taken effect: ${message}`,
      stakes: `${failed.title} is a ${failed.risk} step. Retry runs it again (check first that it did not happen), Skip goes on without it, Replan asks for a new plan, Abort rolls back.`,
    });
    return;
  }
  if (failed.error?.code === REPO_NOT_ALLOWED) {
    // A new plan could name the same repository again; what to do about it is a person's call.
    await escalate(ctx, {
      ...base,
      kind: 'step-failed',
      message: `${failed.stepId} (${failed.title}) was not run: ${message}`,
      stakes: 'Skip goes on without it (its dependants are skipped), Replan asks for a new plan, Abort rolls back what succeeded.',
    });
    return;
  }
  if (failed.error?.code === 'evaluation-failed') {
    await escalate(ctx, {
      ...base,
      kind: 'evaluation-failed',
      message: `${failed.stepId} (${failed.title}) ran but its result failed the check: ${message}`,
      stakes: 'Retry runs the step again, Skip accepts the result and goes on, Replan asks for a new plan, Abort rolls back.',
    });
    return;
  }
  if (failed.risk !== 'read') {
    // A failed change (a deploy that concluded `failure`, a merge GitHub refused) is a person's call, not the planner's.
    await escalate(ctx, {
      ...base,
      kind: 'step-failed',
      message: `${failed.stepId} (${failed.title}) is a ${failed.risk} step and it failed: ${message}`,
      stakes: 'Retry runs the step again, Skip goes on without it (its dependants are skipped), Replan asks for a new plan, Abort rolls back what succeeded.',
    });
    return;
  }
  const limit = await replanBlocked(ctx, run);
  if (!limit) {
    await replan(ctx, run.id, `${failed.stepId} (${failed.title}) failed: ${message}`, ['executing']);
    return;
  }
  await escalate(ctx, {
    ...base,
    kind: 'step-failed',
    message: words`${failed.stepId} (${failed.title}) failed: ${message}. No automatic replan: ${limit}.`,
    stakes: 'Retry runs the step again, Skip goes on without it (its dependants are skipped), Abort rolls back what succeeded.',
  });
}

/** Why a replan may not happen now, or null. */
export async function replanBlocked(ctx: AgentContext, run: RunRecord): Promise<Text | null> {
  if (!ctx.llm.has('planner')) return 'no planner model is configured';
  const usage = await ctx.store.usageTotals(run.id);
  return replanLimits(ctx.settings.budgets)({
    stepAttempts: 0,
    replans: run.replans,
    tokens: usage.inputTokens + usage.outputTokens,
    runStartedAt: run.createdAt,
    now: ctx.now(),
  });
}

/** A new plan version for the remaining work, authored by the planner with a reason. */
export async function replan(ctx: AgentContext, runId: string, reason: Text, from: readonly RunStatus[]): Promise<void> {
  if (!(await ctx.store.transitionRun(runId, from, 'planning'))) return;
  await ctx.store.appendEvent(runId, 'replan-started', { reason });
  const run = await ctx.store.getRun(runId);
  if (!run?.currentPlanVersion) return;
  // The thread shows the planner at work, as it does for a first plan or a revision.
  await ctx.surface.planning(run);
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
  const planned = await makePlan(
    plannerDeps(ctx, runId),
    { task: run.task, requester: run.requester, origin: run.origin, runId, replan: { reason, previousPlan: previous.plan, executed } },
    { completedSteps: completedStepIds(steps) },
  );
  if (!planned.ok) {
    await escalate(ctx, {
      runId,
      planVersion: previous.version,
      stepId: null,
      kind: 'replan-failed',
      message: words`I needed a new plan (${reason}) but could not make one: ${planned.error.message}`,
      stakes: 'Retry or Replan asks the planner again; Abort rolls back what succeeded.',
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
