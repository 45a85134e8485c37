/**
 * The executor's precondition: no step of a plan version starts unless the store shows an approval of
 * that version that the policy accepts for the version's risk (rollback steps counted) — a person's
 * click checked for that need (four-eyes for destructive), or an auto-run the policy allows — and the
 * version's stored content still has the digest that approval recorded (an approval stored before
 * digests binds to the version number only). The same rule is what `tandem audit` checks afterwards.
 */
import { approvalCovers, planRisk, policyVersionApproved } from './approval-policy.ts';
import type { ApprovalRecord, PlanVersionRecord, RunRecord, RunStore } from '../ports/run-store.ts';
import type { VersionApprovals, VersionRefusalCode } from '../ports/policy.ts';
import type { RiskSource } from '../model/tool-risk.ts';
import type { PolicyGate } from './policy-approval.ts';
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
): Refused<ApprovalRecord, VersionRefusalCode> {
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

/** What the policy's answer to the executor needs: the recorded approvals, the policy in force and the tools' risk. */
interface ApprovalFacts {
  store: Pick<RunStore, 'listApprovals'>;
  config: { policy: PolicyGate; tools: RiskSource };
}

/** The executor's precondition (ports/policy.ts), answered by the policy in force; built by the wiring. */
export function versionApprovals(facts: ApprovalFacts): VersionApprovals {
  return {
    mayRun: (run, version, approvals) => versionMayRun(facts, run, version, approvals),
    rollbackContentChanged: (run, version) => rollbackContentChanged(facts, run, version),
  };
}

/** Whether the version may run: the policy in force judges the recorded approvals (decision 028) against its content now. */
async function versionMayRun(
  facts: ApprovalFacts,
  run: RunRecord,
  version: PlanVersionRecord,
  listed?: readonly ApprovalRecord[],
): Promise<Refused<void, VersionRefusalCode>> {
  const approvals = listed ?? (await facts.store.listApprovals(run.id));
  const digest = await planDigest(version.plan);
  return policyVersionApproved({ gate: facts.config.policy, run, version, digest, riskOf: facts.config.tools.riskOf, approvals });
}

/**
 * Before a rollback step of `version` starts: why it must not (the stored content no longer has the
 * digest its approval recorded), or undefined. Only a change of content stops an undo: the version's
 * forward steps ran, so it was approved.
 */
export async function rollbackContentChanged(
  facts: Pick<ApprovalFacts, 'store'> & { config: { tools: RiskSource } },
  run: RunRecord,
  version: PlanVersionRecord,
): Promise<string | undefined> {
  const approved = bindingApproval(await facts.store.listApprovals(run.id), version, run.requester, facts.config.tools.riskOf, await planDigest(version.plan));
  return !approved.ok && approved.error.code === 'content-changed' ? approved.error.message : undefined;
}
