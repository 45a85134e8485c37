/** A person's decisions on a proposed plan: approve, reject, edit, or ask the planner to revise it. */
import { approvalNeed, checkApprover, checkRejecter, checkVersion, planRisk } from './approval-policy.ts';
import type { AgentContext } from './context.ts';
import type { Result } from './errors.ts';
import { validatePlan } from './plan-validation.ts';
import { makePlan } from './planner.ts';
import { plannerDeps } from './planning.ts';
import type { PlanVersionRecord, RunRecord } from './ports/run-store.ts';
import { proposeVersion } from './proposal.ts';
import { finishRun } from './run-ending.ts';
import { completedStepIds } from './step-facts.ts';

type Loaded = { run: RunRecord; version: PlanVersionRecord };

async function loadPending(ctx: AgentContext, runId: string, planVersion: number): Promise<Result<Loaded>> {
  const run = await ctx.store.getRun(runId);
  if (!run) return { ok: false, error: 'That run does not exist.' };
  const current = checkVersion(run, planVersion);
  if (!current.ok) return current;
  if (run.status !== 'awaiting-approval') return { ok: false, error: `This plan is not waiting for a decision (the run is ${run.status}).` };
  const version = await ctx.store.getPlanVersion(runId, planVersion);
  if (!version) return { ok: false, error: 'That plan version does not exist.' };
  return { ok: true, value: { run, version } };
}

export async function decide(ctx: AgentContext, input: { runId: string; planVersion: number; userId: string; decision: 'approve' | 'reject' }): Promise<Result<void>> {
  const loaded = await loadPending(ctx, input.runId, input.planVersion);
  if (!loaded.ok) return loaded;
  const { run, version } = loaded.value;
  const allowed =
    input.decision === 'approve'
      ? await checkApprover({ need: approvalNeed(planRisk(version.plan, ctx.tools.riskOf)), userId: input.userId, requester: run.requester, approvers: ctx.approvers })
      : await checkRejecter({ userId: input.userId, requester: run.requester, approvers: ctx.approvers });
  if (!allowed.ok) return allowed;
  const decision = input.decision === 'approve' ? 'approved' : 'rejected';
  await ctx.store.recordApproval({ runId: run.id, planVersion: input.planVersion, userId: input.userId, decision });
  if (decision === 'rejected') {
    if (!(await finishRun(ctx, run.id, 'rejected', `Rejected by <@${input.userId}>.`, ['awaiting-approval']))) return { ok: false, error: 'Someone else decided on this plan first.' };
    await ctx.store.appendEvent(run.id, 'plan-rejected', { version: input.planVersion, by: input.userId });
    await resolveLowConfidence(ctx, run.id, input.userId, 'abort');
    return { ok: true, value: undefined };
  }
  if (!(await ctx.store.transitionRun(run.id, ['awaiting-approval'], 'executing'))) return { ok: false, error: 'Someone else decided on this plan first.' };
  await ctx.store.appendEvent(run.id, 'plan-approved', { version: input.planVersion, by: input.userId });
  await resolveLowConfidence(ctx, run.id, input.userId, 'skip');
  ctx.kick(run.id);
  return { ok: true, value: undefined };
}

/** An approver's click answers an open low-confidence escalation on the plan too. */
async function resolveLowConfidence(ctx: AgentContext, runId: string, userId: string, action: 'skip' | 'abort'): Promise<void> {
  for (const escalation of await ctx.store.listEscalations(runId)) {
    if (escalation.status === 'open' && escalation.kind === 'low-confidence') await ctx.store.resolveEscalation({ id: escalation.id, action, userId });
  }
}

/** A person's edit is checked like a replan: ids of steps that already ran may be read, not reused. */
async function validateEdit(ctx: AgentContext, input: { runId: string; plan: unknown }) {
  const steps = await ctx.store.listSteps(input.runId);
  return validatePlan(input.plan, ctx.tools, { maxSteps: ctx.settings.budgets.maxSteps, completedSteps: completedStepIds(steps) });
}

export async function checkEdit(ctx: AgentContext, input: { runId: string; planVersion: number; plan: unknown }): Promise<Result<void, string[]>> {
  const run = await ctx.store.getRun(input.runId);
  if (!run) return { ok: false, error: ['That run does not exist.'] };
  const current = checkVersion(run, input.planVersion);
  if (!current.ok) return { ok: false, error: [current.error] };
  const checked = await validateEdit(ctx, input);
  return checked.ok ? { ok: true, value: undefined } : checked;
}

export async function editPlan(ctx: AgentContext, input: { runId: string; planVersion: number; userId: string; plan: unknown }): Promise<Result<PlanVersionRecord, string[]>> {
  const loaded = await loadPending(ctx, input.runId, input.planVersion);
  if (!loaded.ok) return { ok: false, error: [loaded.error] };
  const { run } = loaded.value;
  const may = await checkRejecter({ userId: input.userId, requester: run.requester, approvers: ctx.approvers });
  if (!may.ok) return { ok: false, error: ['Only the requester or an approver may edit this plan.'] };
  const checked = await validateEdit(ctx, input);
  if (!checked.ok) return checked;
  if (!(await ctx.store.transitionRun(run.id, ['awaiting-approval'], 'planning'))) return { ok: false, error: ['Someone else decided on this plan first.'] };
  const record = await ctx.store.addPlanVersion({ runId: run.id, plan: checked.value, authorKind: 'human', authorId: input.userId, parentVersion: input.planVersion, reason: `edited by <@${input.userId}>` });
  await ctx.store.updateRun(run.id, { currentPlanVersion: record.version });
  await proposeVersion(ctx, record, { from: ['planning'], kind: 'edit' });
  return { ok: true, value: record };
}

/** Accepted at once; the planner works in the background and the revision is proposed as a new version. */
export async function revisePlan(ctx: AgentContext, input: { runId: string; planVersion: number; userId: string; instruction: string }): Promise<Result<{ work: Promise<void> }>> {
  const loaded = await loadPending(ctx, input.runId, input.planVersion);
  if (!loaded.ok) return loaded;
  const { run, version } = loaded.value;
  const may = await checkRejecter({ userId: input.userId, requester: run.requester, approvers: ctx.approvers });
  if (!may.ok) return { ok: false, error: 'Only the requester or an approver may ask for a revision.' };
  if (!ctx.llm.has('planner')) return { ok: false, error: 'No planner model is configured, so I cannot revise the plan; edit the steps instead.' };
  if (!(await ctx.store.transitionRun(run.id, ['awaiting-approval'], 'planning'))) return { ok: false, error: 'Someone else decided on this plan first.' };
  await ctx.store.appendEvent(run.id, 'revision-requested', { version: version.version, by: input.userId, instruction: input.instruction.slice(0, 2000) });
  const work = (async () => {
    await ctx.surface.planning(run);
    const planned = await makePlan(plannerDeps(ctx, run.id), { task: run.task, requester: run.requester, origin: run.origin, runId: run.id, revise: { instruction: input.instruction, by: input.userId, currentPlan: version.plan } });
    if (!planned.ok) {
      await ctx.surface.notify(run, `I could not revise the plan: ${planned.error}. Version ${version.version} still stands.`);
      await ctx.store.transitionRun(run.id, ['planning'], 'awaiting-approval');
      return;
    }
    const record = await ctx.store.addPlanVersion({ runId: run.id, plan: planned.value.plan, authorKind: 'planner', authorId: planned.value.author, parentVersion: version.version, reason: `revised at <@${input.userId}>'s request: ${input.instruction.slice(0, 300)}` });
    await ctx.store.updateRun(run.id, { currentPlanVersion: record.version });
    await proposeVersion(ctx, record, { from: ['planning'], kind: 'revision' });
  })();
  return { ok: true, value: { work } };
}
