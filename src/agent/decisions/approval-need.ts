/**
 * What a plan version's risk asks of an approval, and whether an approval already recorded meets it. Tools only
 * say their risk; this is the one place that turns it into "an approver" or "an approver other than the
 * requester" (decision 028 keeps these as the built-in policy's words and the audit's rule for old rows).
 */
import type { Plan } from '../model/plan/plan.ts';
import type { ApprovalRecord } from '../ports/run-store.ts';
import type { Risk } from '../ports/tool.ts';
import { refuse, type Refused } from '../model/refusal.ts';
import { riskOfTool } from '../model/tool-risk.ts';

/** 'anyone' is no longer asked for (every click needs an approver); approvals recorded before say it. */
export type ApprovalNeed = 'anyone' | 'approver' | 'approver-not-requester';

const RANK: Record<Risk, number> = { read: 0, write: 1, destructive: 2 };

/** The highest risk among the plan's steps, rollback steps included (they run too). */
export function planRisk(plan: Plan, riskOf: (tool: string) => Risk | undefined): Risk {
  let highest: Risk = 'read';
  for (const step of [...plan.steps, ...plan.rollback]) {
    const risk = riskOfTool({ riskOf }, step.tool);
    if (RANK[risk] > RANK[highest]) highest = risk;
  }
  return highest;
}

/** Only approvers may approve, whatever the plan does; destructive work also needs a second person. */
export function approvalNeed(risk: Risk): ApprovalNeed {
  return risk === 'destructive' ? 'approver-not-requester' : 'approver';
}

/** True when a new plan version adds work that a person must approve again (a replan with writes). */
export function needsReapproval(risk: Risk): boolean {
  return risk !== 'read';
}

const NEED_RANK: Record<ApprovalNeed, number> = { anyone: 0, approver: 1, 'approver-not-requester': 2 };

/** Approvals recorded before the `via` column existed name their rule in the user id. */
export const isAutoApproval = (approval: Pick<ApprovalRecord, 'via' | 'userId'>) => approval.via === 'auto' || /^(tandem|runbook):/.test(approval.userId);

/** Why a recorded approval does not let a version run. */
export type ApprovalGapCode = 'rejected' | 'auto-run-not-read-only' | 'checked-for-lower-need' | 'approved-only-by-requester';

/**
 * Whether a recorded approval lets a version of this risk run: an auto-run only where the policy
 * allows one (every auto-run rule is for read-only versions); a person's approval only if it was
 * checked against a need at least this version's, and for destructive work not by the requester.
 */
export function approvalCovers(approval: ApprovalRecord, risk: Risk, requester: string): Refused<void, ApprovalGapCode> {
  if (approval.decision !== 'approved') return refuse('rejected', `v${approval.planVersion} was rejected by ${approval.userId}`);
  const need = approvalNeed(risk);
  if (isAutoApproval(approval))
    return risk === 'read'
      ? { ok: true, value: undefined }
      : refuse('auto-run-not-read-only', `v${approval.planVersion} has ${risk} steps but ran without a person's approval (${approval.userId})`);
  // Rows from before the need was recorded were checked by the same rule for an approver.
  const checked: ApprovalNeed = approval.need ?? 'approver';
  if (NEED_RANK[checked] < NEED_RANK[need])
    return refuse('checked-for-lower-need', `${approval.userId} was checked as "${checked}" but v${approval.planVersion} needs "${need}"`);
  if (need === 'approver-not-requester' && approval.userId === requester)
    return refuse('approved-only-by-requester', `v${approval.planVersion} is destructive and was approved only by its requester ${requester}`);
  return { ok: true, value: undefined };
}
