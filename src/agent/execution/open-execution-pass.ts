/** Opens a driver's pass over a run's executing plan version, once that version may start. */
import type { AgentContext } from '../context.ts';
import { runClockAt, runClockStart } from '../model/budgets.ts';
import { riskOfTool } from '../model/tool-risk.ts';
import type { Refusal } from '../model/refusal.ts';
import type { PassOpening } from '../ports/openings.ts';
import type { PlanVersionRecord, RunRecord } from '../ports/run-store.ts';
import type { VersionRefusalCode } from '../ports/policy.ts';
import { escalate } from './escalation.ts';
import { ExecutionPass, type PassHooks } from './execution-pass.ts';
import { passReads } from './pass-reads.ts';
import { escalatedSteps } from './steps/step-facts.ts';

/**
 * Reads the run's opening (shared with the drivers that open in the same turn: pass-reads.ts) and creates
 * its version's step rows if they are not there yet; undefined when there is nothing to execute.
 */
export async function openExecutionPass(ctx: AgentContext, runId: string, hooks: PassHooks): Promise<ExecutionPass | undefined> {
  const reads = passReads(ctx.store);
  // Asked together: with the other drivers opening in this turn, one statement more for all of them.
  const [opening, clockFacts] = await Promise.all([reads.opening(runId), reads.clockFacts(runId)]);
  if (!opening) return undefined;
  const { run, version: planVersion, approvals, escalations, tokens } = opening;
  if (run.status !== 'executing' || !run.currentPlanVersion || !planVersion) return undefined;
  const approved = await ctx.config.approvals.mayRun(run, planVersion, approvals);
  if (!approved.ok) return void (await refuseUnapproved(ctx, run, planVersion, approved.error));
  const steps = await withStepRows(ctx, opening, planVersion.version);
  return new ExecutionPass(ctx, run, planVersion.plan, planVersion.version, steps, hooks, {
    escalated: escalatedSteps(escalations, planVersion.version),
    tokens: { total: tokens, readAt: ctx.now() },
    // The approvals just judged let it run, so one started its clock (the mention's time only for a row without
    // any), moved on by the time the run could only wait for people (budgets.ts `runTimeSpentMs`).
    runStartedAt: runClockAt(runClockStart(approvals) ?? run.createdAt, ctx.now(), clockFacts),
  });
}

/** The run's step rows, with the version's own created first when this is its first pass (a resumed run has them). */
async function withStepRows(ctx: AgentContext, { run, version, steps }: PassOpening, planVersion: number) {
  const plan = version!.plan;
  const present = new Set(steps.filter((step) => step.planVersion === planVersion && step.kind === 'forward').map((step) => step.stepId));
  if (plan.steps.every((step) => present.has(step.id))) return steps;
  await ctx.store.createSteps(
    run.id,
    planVersion,
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
  return ctx.store.listSteps(run.id);
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
