/**
 * The one place that maps risk to who may approve (tools only say their risk):
 * - a read-only plan runs without a click when autoRunReadOnly is on; otherwise anyone may approve it;
 * - a plan with a write step needs an approver (ApproverDirectory);
 * - a plan with a destructive step needs an approver other than the requester.
 * A decision binds to (run, plan version): a click on a superseded version is refused.
 */
import type { Result } from './errors.ts';
import type { Plan } from './plan.ts';
import type { ApproverDirectory } from './ports/agent-api.ts';
import type { RunRecord } from './ports/run-store.ts';
import type { Risk } from './ports/tool.ts';

export type ApprovalNeed = 'anyone' | 'approver' | 'approver-not-requester';

const RANK: Record<Risk, number> = { read: 0, write: 1, destructive: 2 };

/** The highest risk among the plan's steps, rollback steps included (they run too). */
export function planRisk(plan: Plan, riskOf: (tool: string) => Risk | undefined): Risk {
  let highest: Risk = 'read';
  for (const step of [...plan.steps, ...plan.rollback]) {
    const risk = riskOf(step.tool) ?? 'destructive'; // an unknown tool never lowers the bar
    if (RANK[risk] > RANK[highest]) highest = risk;
  }
  return highest;
}

export function approvalNeed(risk: Risk): ApprovalNeed {
  if (risk === 'destructive') return 'approver-not-requester';
  if (risk === 'write') return 'approver';
  return 'anyone';
}

export function mayAutoRun(risk: Risk, settings: { autoRunReadOnly: boolean }): boolean {
  return risk === 'read' && settings.autoRunReadOnly;
}

/** True when a new plan version adds work that a person must approve again (a replan with writes). */
export function needsReapproval(risk: Risk): boolean {
  return risk !== 'read';
}

export function checkVersion(run: RunRecord, planVersion: number): Result<void> {
  if (run.currentPlanVersion !== planVersion) {
    return {
      ok: false,
      error: `Version ${planVersion} of this plan was replaced by version ${run.currentPlanVersion ?? '?'}; decide on the newest version instead.`,
    };
  }
  return { ok: true, value: undefined };
}

export async function checkApprover(input: { need: ApprovalNeed; userId: string; requester: string; approvers: ApproverDirectory }): Promise<Result<void>> {
  if (input.need === 'anyone') return { ok: true, value: undefined };
  if (!(await input.approvers.isApprover(input.userId))) {
    return { ok: false, error: 'Only approvers (TANDEM_APPROVERS) may approve a plan that changes things; you are not on the list.' };
  }
  if (input.need === 'approver-not-requester' && input.userId === input.requester) {
    return { ok: false, error: 'This plan has a destructive step, so an approver other than the person who asked must approve it.' };
  }
  return { ok: true, value: undefined };
}

/** Rejecting stops a plan: the requester may always withdraw their own request; otherwise approvers only. */
export async function checkRejecter(input: { userId: string; requester: string; approvers: ApproverDirectory }): Promise<Result<void>> {
  if (input.userId === input.requester || (await input.approvers.isApprover(input.userId))) return { ok: true, value: undefined };
  return { ok: false, error: 'Only the requester or an approver may reject this plan.' };
}

/** Resolving an escalation decides what runs next, so it takes an approver. */
export async function checkResolver(input: { userId: string; approvers: ApproverDirectory }): Promise<Result<void>> {
  if (await input.approvers.isApprover(input.userId)) return { ok: true, value: undefined };
  return { ok: false, error: 'Only approvers (TANDEM_APPROVERS) may decide how an escalated run continues.' };
}
