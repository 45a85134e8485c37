/** Opens a driver's pass over a run's executing plan version, once that version may start. */
import { riskOfTool } from '../decisions/approval-policy.ts';
import type { AgentContext } from '../context.ts';
import { mayStartVersion } from '../decisions/version-approval.ts';
import type { RunRecord } from '../ports/run-store.ts';
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
  if (!planVersion || !(await mayStartVersion(ctx, run, planVersion))) return undefined;
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
