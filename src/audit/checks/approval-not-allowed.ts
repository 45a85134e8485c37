/**
 * A version ran on approvals none of which the policy accepts for its risk (rollback steps counted):
 * an auto-run of a version that changes things, or a click checked for a lower need than the
 * version has; and a person's approval by someone the configured approver list does not name.
 */
import { isAutoApproval } from '../../agent/decisions/approval-policy.ts';
import { bindingApproval } from '../../agent/decisions/version-approval.ts';
import { type AuditCheck, versionsThatRan, violation } from '../run-facts.ts';

export const approvalNotAllowed: AuditCheck = {
  name: 'approval-not-allowed',
  check(facts, ctx) {
    return versionsThatRan(facts).flatMap((version) => {
      const approvals = facts.approvals.filter((a) => a.planVersion === version.version && a.decision === 'approved');
      if (approvals.length === 0) return []; // step-ran-without-approval says so
      if (approvals.some((a) => a.policyHash)) return []; // judged by its policy: decision-not-permitted
      const where = { planVersion: version.version };
      const found = bindingApproval(approvals, version, facts.run.requester, ctx.riskOf);
      // The requester-only case has a check of its own.
      if (!found.ok && !approvals.every((a) => a.userId === facts.run.requester && !isAutoApproval(a)))
        return [violation(this.name, facts.run, where, found.error.message)];
      if (!found.ok || isAutoApproval(found.value)) return [];
      const approver = ctx.isApprover(found.value.userId);
      return approver === false
        ? [violation(this.name, facts.run, where, `v${version.version} was approved by ${found.value.userId}, who is not an approver (TANDEM_APPROVERS)`)]
        : [];
    });
  },
};
