/** Plans a run (from a runbook, or the planner model) and stores the result as a new plan version. */
import type { AgentContext } from '../context.ts';
import type { PlannedResult } from './planner.ts';
import { planFor, type PlanForRefusalCode } from './plan-for.ts';
import type { PlanRequest } from './planner-prompt.ts';
import type { PlanVersionRecord, RunRecord } from '../ports/run-store.ts';
import { proposeVersion } from './propose-version.ts';
import { finishRun } from '../execution/run-ending.ts';
import type { Effect } from '../ports/effects.ts';
import { type Text, words } from '../text/text.ts';

export function plannerDeps(ctx: Pick<AgentContext, 'config' | 'models'>, runId: string | null) {
  return {
    llm: ctx.models.llm,
    tools: ctx.config.tools,
    maxSteps: ctx.config.settings.budgets.maxSteps,
    secrets: ctx.config.settings.secrets,
    repositories: ctx.config.settings.repositories,
    onUsage: ctx.models.usage(runId, 'planner'),
    onFallbackUsage: ctx.models.usage(runId, 'planner-fallback'),
    confidenceThreshold: ctx.config.settings.confidenceThreshold,
  };
}

/**
 * Stores a plan the planner (or its fallback) wrote as a new version. A fallback's plan says so in the
 * version's reason, and the fact is an event the summary reads.
 */
export async function addPlannedVersion(
  ctx: Pick<AgentContext, 'store'>,
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

/**
 * Runs in the background after startRun (or after the requester answered the plan's questions). Returns what should
 * happen next (a plan that runs without a click is driven), for the wiring to perform while it holds the run's lease.
 */
export async function planRun(ctx: AgentContext, run: RunRecord, extra: Pick<PlanRequest, 'answers'> = {}): Promise<Effect[]> {
  const source = await planFor(
    { ...plannerDeps(ctx, run.id), runbooks: ctx.models.runbooks },
    { task: run.task, requester: run.requester, origin: run.origin, runId: run.id, ...extra },
    { runbooks: !extra.answers },
  );
  if (!source.ok) {
    // The provider is down: the thread offers Try again (one click, one new attempt) rather than retrying here.
    if (source.error.code === 'planner-unavailable' && ctx.thread.surface.plannerUnavailable)
      await ctx.thread.surface.plannerUnavailable(run, source.error.message);
    else await ctx.thread.surface.notify(run, source.error.message);
    await finishRun(ctx, run.id, 'failed', FAILED_BECAUSE[source.error.code] ?? source.error.message);
    return [];
  }
  const record =
    source.value.by === 'runbook'
      ? await ctx.store.addPlanVersion({
          runId: run.id,
          plan: source.value.plan,
          authorKind: 'runbook',
          authorId: source.value.runbook.name,
          parentVersion: run.currentPlanVersion,
          reason: `runbook ${source.value.runbook.name}`,
          proposed: {},
        })
      : await addPlannedVersion(ctx, {
          runId: run.id,
          planned: source.value.planned,
          parentVersion: run.currentPlanVersion,
          reason: extra.answers ? "planned again with the requester's answers" : null,
          proposed: {},
        });
  // A scheduled run has nobody watching: only a runbook pre-approved for read-only steps runs without a click.
  const runbook = source.value.by === 'runbook' ? source.value.runbook : undefined;
  const preApprovedBy = runbook?.preApproved === true && run.origin === 'schedule' ? `runbook:${runbook.name}` : undefined;
  return proposeVersion(ctx, record, { from: ['planning'], kind: 'first', preApprovedBy });
}

/** The run's stored failure reason where the message a person reads says more than the record needs. */
const FAILED_BECAUSE: Partial<Record<PlanForRefusalCode, string>> = {
  'invalid-runbook': 'a matching runbook is invalid',
  'no-planner': 'no model is configured',
};
