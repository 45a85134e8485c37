/**
 * A version that changes things and ran without a click, on a policy's `auto_run` rule (decision 028): judged
 * by the policy then in force (its texts are kept by hash), with the requester's groups as recorded then. It is
 * reported when that policy's texts are not stored, or when they do not permit `auto_run` on every step.
 * (An auto-run without a recorded policy is judged by its risk alone: approval-not-allowed.)
 */
import { isAutoApproval } from '../../agent/decisions/approval-policy.ts';
import { autoRunRules } from '../../agent/decisions/auto-run-grant.ts';
import { policySteps } from '../../agent/decisions/policy-approval.ts';
import { type AuditCheck, versionsThatRan, violation } from '../run-facts.ts';

export const autoRunNotPermitted: AuditCheck = {
  name: 'auto-run-not-permitted',
  check(facts, ctx) {
    return versionsThatRan(facts).flatMap((version) => {
      const granted = facts.approvals.filter((a) => a.planVersion === version.version && a.decision === 'approved' && isAutoApproval(a) && a.policyHash);
      return granted.flatMap((approval) => {
        const where = { planVersion: version.version };
        const hash = approval.policyHash!;
        const engine = ctx.policyOf?.(hash);
        if (!engine)
          return [
            violation(this.name, facts.run, where, `v${version.version} ran without a click under policy ${hash.slice(0, 12)}, whose texts are not stored`),
          ];
        const situation = {
          requester: facts.run.requester,
          channel: facts.run.conversation.channel,
          confidence: version.plan.confidence,
          planVersion: version.version,
          ...(facts.digests.get(version.version) ? { digest: facts.digests.get(version.version) } : {}),
        };
        const rules = autoRunRules(engine, {
          requester: facts.run.requester,
          groups: approval.policyGroups ?? engine.groups,
          steps: policySteps(version.plan, ctx.riskOf, situation.channel),
          situation,
        });
        return rules
          ? []
          : [
              violation(
                this.name,
                facts.run,
                where,
                `v${version.version} ran without a click, but policy ${hash.slice(0, 12)} does not let it run without one on every step`,
              ),
            ];
      });
    });
  },
};
