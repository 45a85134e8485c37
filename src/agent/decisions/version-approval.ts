/**
 * The executor's precondition: no step of a plan version starts unless the store shows an approval of
 * that version that the policy accepts for the version's risk (rollback steps counted) — a person's
 * click checked for that need (four-eyes for destructive), or an auto-run the policy allows — and the
 * version's stored content still has the digest that approval recorded (an approval stored before
 * digests binds to the version number only). The same rule is what `tandem audit` checks afterwards.
 */
import { approvalCovers, planRisk, policyVersionApproved } from './approval-policy.ts';
import type { AgentContext } from '../context.ts';
import { escalate } from '../execution/escalation.ts';
import type { ApprovalRecord, PlanVersionRecord, RunRecord } from '../ports/run-store.ts';
import { planDigest, shortDigest } from '../model/plan/plan-digest.ts';
import type { Risk } from '../ports/tool.ts';
import { refuse, type Refused } from '../model/refusal.ts';

/**
 * The approval that lets `version` run, if one does. With `digest` (the stored content's, now), an
 * approval that recorded another digest does not count: the row changed after it was approved.
 */
export function bindingApproval(
  approvals: readonly ApprovalRecord[],
  version: PlanVersionRecord,
  requester: string,
  riskOf: (tool: string) => Risk | undefined,
  digest?: string,
): Refused<ApprovalRecord, 'no-approval' | 'none-covers' | 'content-changed'> {
  const risk = planRisk(version.plan, riskOf);
  const mine = approvals.filter((approval) => approval.planVersion === version.version && approval.decision === 'approved');
  if (mine.length === 0) return refuse('no-approval', `no approval of v${version.version} is recorded`);
  const reasons: string[] = [];
  let changed = false;
  for (const approval of mine) {
    const covers = approvalCovers(approval, risk, requester);
    if (!covers.ok) {
      reasons.push(covers.error.message);
      continue;
    }
    if (digest === undefined || approval.digest === null || approval.digest === digest) return { ok: true, value: approval };
    changed = true;
    reasons.push(
      `v${version.version} was approved by ${approval.userId} with digest ${shortDigest(approval.digest)}, but its stored content now has digest ${shortDigest(digest)}`,
    );
  }
  return refuse(changed ? 'content-changed' : 'none-covers', reasons.join('; '));
}

/**
 * True when the version may run; otherwise nothing starts and a person is asked (the run pauses).
 * `listed`: the run's approvals, when the caller just read them.
 */
export async function mayStartVersion(ctx: AgentContext, run: RunRecord, version: PlanVersionRecord, listed?: readonly ApprovalRecord[]): Promise<boolean> {
  const approvals = listed ?? (await ctx.store.listApprovals(run.id));
  const digest = await planDigest(version.plan);
  // The policy in force judges the recorded approvals (decision 028).
  const approved = await policyVersionApproved({ gate: ctx.policy, run, version, digest, riskOf: ctx.tools.riskOf, approvals });
  if (approved.ok) return true;
  ctx.logger.warn({ runId: run.id, planVersion: version.version, why: approved.error.message }, 'refusing to run an unapproved plan version');
  await escalate(ctx, {
    runId: run.id,
    planVersion: version.version,
    stepId: null,
    kind: 'not-approved',
    message:
      approved.error.code === 'content-changed'
        ? `Plan v${version.version} changed after it was approved (${approved.error.message}); nothing was started.`
        : `Plan v${version.version} has no approval that lets it run (${approved.error.message}); nothing was started.`,
    pauseFrom: ['executing'],
  });
  return false;
}

/**
 * Before a rollback step of `version` starts: why it must not (the stored content no longer has the
 * digest its approval recorded), or undefined. Only a change of content stops an undo: the version's
 * forward steps ran, so it was approved.
 */
export async function rollbackContentChanged(ctx: AgentContext, run: RunRecord, version: PlanVersionRecord): Promise<string | undefined> {
  const approved = bindingApproval(await ctx.store.listApprovals(run.id), version, run.requester, ctx.tools.riskOf, await planDigest(version.plan));
  return !approved.ok && approved.error.code === 'content-changed' ? approved.error.message : undefined;
}
