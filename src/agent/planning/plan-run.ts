/** Plans a run (from a runbook, or the planner model) and stores the result as a new plan version. */
import type { AgentContext } from '../context.ts';
import { problemWords } from '../model/plan-problems.ts';
import { validatePlan } from '../model/plan-validation.ts';
import { makePlan, type PlannedResult } from './planner.ts';
import type { PlanRequest } from './planner-prompt.ts';
import type { PlanVersionRecord, RunRecord } from '../ports/run-store.ts';
import { proposeVersion } from './propose-version.ts';
import { finishRun } from '../execution/run-ending.ts';
import { joined, setting, type Text, words } from '../text/text.ts';

/** Said the same on every surface: the CLI names the variables, the thread names them in words (so no "X=…" that only reads as a variable). */
export const NO_MODEL_MESSAGE = words`I have no model to plan this with and no runbook matches it. To plan free-form tasks, an operator configures a model: set ${setting('planner-model')} (for example openai:gpt-4o) and ${setting('model-key')}.`;

export function plannerDeps(ctx: AgentContext, runId: string | null) {
  return {
    llm: ctx.llm,
    tools: ctx.tools,
    maxSteps: ctx.settings.budgets.maxSteps,
    secrets: ctx.settings.secrets,
    repositories: ctx.settings.repositories,
    onUsage: ctx.usage(runId, 'planner'),
    onFallbackUsage: ctx.usage(runId, 'planner-fallback'),
    confidenceThreshold: ctx.settings.confidenceThreshold,
  };
}

/**
 * Stores a plan the planner (or its fallback) wrote as a new version. A fallback's plan says so in the
 * version's reason, and the fact is an event the summary reads.
 */
export async function addPlannedVersion(
  ctx: AgentContext,
  input: { runId: string; planned: PlannedResult; parentVersion: number | null; reason: Text | null; proposed?: { replans?: number } },
): Promise<PlanVersionRecord> {
  const { planned } = input;
  const note = planned.fallback ? `written by the fallback planner ${planned.author} because ${planned.fallback}` : null;
  const reason = input.reason && note ? words`${input.reason}; ${note}` : (input.reason ?? note);
  const record = await ctx.store.addPlanVersion({
    runId: input.runId,
    plan: planned.plan,
    authorKind: 'planner',
    authorId: planned.author,
    parentVersion: input.parentVersion,
    reason,
    ...(input.proposed ? { proposed: input.proposed } : {}),
  });
  if (planned.fallback)
    await ctx.store.appendEvent(input.runId, 'planner-fallback', { planVersion: record.version, author: planned.author, reason: planned.fallback });
  return record;
}

/** Runs in the background after startRun (or after the requester answered the plan's questions). */
export async function planRun(ctx: AgentContext, run: RunRecord, extra: Pick<PlanRequest, 'answers'> = {}): Promise<void> {
  const runbook = extra.answers ? undefined : ctx.runbooks?.match(run.task);
  let record: PlanVersionRecord | undefined;
  if (runbook) {
    const checked = validatePlan(runbook.plan, ctx.tools, { maxSteps: ctx.settings.budgets.maxSteps, repositories: ctx.settings.repositories });
    if (!checked.ok) {
      await ctx.surface.notify(run, words`Runbook ${runbook.name} matches this task but its plan is invalid: ${joined(checked.error.map(problemWords), '; ')}`);
      await finishRun(ctx, run.id, 'failed', `runbook ${runbook.name} is invalid`);
      return;
    }
    record = await ctx.store.addPlanVersion({
      runId: run.id,
      plan: checked.value,
      authorKind: 'runbook',
      authorId: runbook.name,
      parentVersion: run.currentPlanVersion,
      reason: `runbook ${runbook.name}`,
      proposed: {},
    });
  } else if (!ctx.llm.has('planner')) {
    await ctx.surface.notify(run, NO_MODEL_MESSAGE);
    await finishRun(ctx, run.id, 'failed', 'no model is configured');
    return;
  } else {
    const planned = await makePlan(plannerDeps(ctx, run.id), { task: run.task, requester: run.requester, origin: run.origin, runId: run.id, ...extra });
    if (!planned.ok) {
      // The provider is down: the thread offers Try again (one click, one new attempt) rather than retrying here.
      if (planned.error.code === 'planner-unavailable' && ctx.surface.plannerUnavailable) await ctx.surface.plannerUnavailable(run, planned.error.message);
      else await ctx.surface.notify(run, planned.error.message);
      await finishRun(ctx, run.id, 'failed', planned.error.message);
      return;
    }
    record = await addPlannedVersion(ctx, {
      runId: run.id,
      planned: planned.value,
      parentVersion: run.currentPlanVersion,
      reason: extra.answers ? "planned again with the requester's answers" : null,
      proposed: {},
    });
  }
  // A scheduled run has nobody watching: only a runbook pre-approved for read-only steps runs without a click.
  const preApprovedBy = runbook?.preApproved === true && run.origin === 'schedule' ? `runbook:${runbook.name}` : undefined;
  await proposeVersion(ctx, record, { from: ['planning'], kind: 'first', preApprovedBy });
}
