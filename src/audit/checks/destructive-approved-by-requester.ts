/** A version with a destructive step (rollback counted) ran with no approval but its requester's own. */
import { isAutoApproval, planRisk } from '../../agent/decisions/approval-policy.ts';
import { type AuditCheck, versionsThatRan, violation } from '../run-facts.ts';

export const destructiveApprovedByRequester: AuditCheck = {
  name: 'destructive-approved-by-requester',
  check(facts, ctx) {
    return versionsThatRan(facts)
      .filter((version) => planRisk(version.plan, ctx.riskOf) === 'destructive')
      .filter((version) => {
        const approvals = facts.approvals.filter((a) => a.planVersion === version.version && a.decision === 'approved');
        // A version approved under TANDEM_POLICY is judged by its policy (decision-not-permitted), which may allow this.
        return approvals.length > 0 && !approvals.some((a) => a.policyHash) && approvals.every((a) => a.userId === facts.run.requester && !isAutoApproval(a));
      })
      .map((version) =>
        violation(
          this.name,
          facts.run,
          { planVersion: version.version },
          `v${version.version} has a destructive step and was approved only by its requester ${facts.run.requester}`,
        ),
      );
  },
};
