/**
 * The executor's precondition: no step of a plan version starts unless the store shows an approval of
 * that version that the policy accepts for the version's risk (rollback steps counted) — a person's
 * click checked for that need (four-eyes for destructive), or an auto-run the policy allows.
 * The same rule is what `tandem audit` checks afterwards.
 */
import { approvalCovers, planRisk } from './approval-policy.ts';
import type { AgentContext } from './context.ts';
import { escalate } from './escalation.ts';
import type { ApprovalRecord, PlanVersionRecord, RunRecord } from './ports/run-store.ts';
import type { Risk } from './ports/tool.ts';
import { refuse, type Refused } from './refusal.ts';

export function bindingApproval(
  approvals: readonly ApprovalRecord[],
  version: PlanVersionRecord,
  requester: string,
  riskOf: (tool: string) => Risk | undefined,
): Refused<ApprovalRecord, 'no-approval' | 'none-covers'> {
  const risk = planRisk(version.plan, riskOf);
  const mine = approvals.filter((approval) => approval.planVersion === version.version && approval.decision === 'approved');
  if (mine.length === 0) return refuse('no-approval', `no approval of v${version.version} is recorded`);
  const reasons: string[] = [];
  for (const approval of mine) {
    const covers = approvalCovers(approval, risk, requester);
    if (covers.ok) return { ok: true, value: approval };
    reasons.push(covers.error.message);
  }
  return refuse('none-covers', reasons.join('; '));
}

/** True when the version may run; otherwise nothing starts and a person is asked (the run pauses). */
export async function mayStartVersion(ctx: AgentContext, run: RunRecord, version: PlanVersionRecord): Promise<boolean> {
  const approved = bindingApproval(await ctx.store.listApprovals(run.id), version, run.requester, ctx.tools.riskOf);
  if (approved.ok) return true;
  ctx.logger.warn({ runId: run.id, planVersion: version.version, why: approved.error.message }, 'refusing to run an unapproved plan version');
  await escalate(ctx, {
    runId: run.id,
    planVersion: version.version,
    stepId: null,
    kind: 'not-approved',
    message: `Plan v${version.version} has no approval that lets it run (${approved.error.message}); nothing was started.`,
    stakes: 'Replan proposes a new version for approval; Abort ends the run and rolls back what succeeded.',
    pauseFrom: ['executing'],
  });
  return false;
}
