/** Opens a driver's pass over a run's executing plan version, once that version may start. */
import type { AgentContext } from '../context.ts';
import { riskOfTool } from '../model/tool-risk.ts';
import type { Refusal } from '../model/refusal.ts';
import type { PlanVersionRecord, RunRecord } from '../ports/run-store.ts';
import type { VersionRefusalCode } from '../ports/version-approvals.ts';
import { escalate } from './escalation.ts';
import { ExecutionPass, type PassHooks } from './execution-pass.ts';
import { escalatedSteps } from './steps/step-facts.ts';

/**
 * Reads the run (unless the caller just did) and its current plan version and creates its step rows;
 * undefined when there is nothing to execute.
 */
export async function openExecutionPass(ctx: AgentContext, runOrId: RunRecord | string, hooks: PassHooks): Promise<ExecutionPass | undefined> {
  const run = typeof runOrId === 'string' ? await ctx.store.getRun(runOrId) : runOrId;
  if (!run || run.status !== 'executing' || !run.currentPlanVersion) return undefined;
  const runId = run.id;
  const planVersion = await ctx.store.getPlanVersion(runId, run.currentPlanVersion);
  if (!planVersion) return undefined;
  const approved = await ctx.config.approvals.mayRun(run, planVersion);
  if (!approved.ok) return void (await refuseUnapproved(ctx, run, planVersion, approved.error));
  const plan = planVersion.plan;
  await ctx.store.createSteps(
    runId,
    planVersion.version,
    plan.steps.map((step) => ({
      stepId: step.id,
      kind: 'forward',
      title: step.title,
      tool: step.tool,
      risk: riskOfTool(ctx.config.tools, step.tool),
      dependsOn: step.dependsOn,
      plannedArgs: step.args,
    })),
  );
  const [steps, escalations] = await Promise.all([ctx.store.listSteps(runId), ctx.store.listEscalations(runId)]);
  return new ExecutionPass(ctx, run, plan, planVersion.version, steps, hooks, escalatedSteps(escalations, planVersion.version));
}

/** A version the stored approvals do not let run: nothing starts, and a person is asked (the run pauses). */
async function refuseUnapproved(ctx: AgentContext, run: RunRecord, version: PlanVersionRecord, refusal: Refusal<VersionRefusalCode>): Promise<void> {
  ctx.logger.warn({ runId: run.id, planVersion: version.version, why: refusal.message }, 'refusing to run an unapproved plan version');
  await escalate(ctx, {
    runId: run.id,
    planVersion: version.version,
    stepId: null,
    kind: 'not-approved',
    message:
      refusal.code === 'content-changed'
        ? `Plan v${version.version} changed after it was approved (${refusal.message}); nothing was started.`
        : `Plan v${version.version} has no approval that lets it run (${refusal.message}); nothing was started.`,
    pauseFrom: ['executing'],
  });
}
