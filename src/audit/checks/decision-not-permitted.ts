/**
 * Under TANDEM_POLICY (decision 028) each approval records the hash of the policy in force and the rules
 * that permitted it. Each is judged by that policy (its texts are kept by hash): a decision whose policy
 * is not stored, that names no rule or a rule the policy does not have as a permit, that no rule of it
 * permits for any step, or a version that ran without every step having the approvals its rule needs.
 * Each approver counts as a member of the groups the approval recorded (their membership when they clicked),
 * so a later change of membership never turns an old valid decision into a violation, and a click by someone
 * outside the group is reported. An approval stored before groups were recorded counts in every group the
 * policy names: a violation about it is never a membership question.
 */
import { isAutoApproval } from '../../agent/decisions/approval-policy.ts';
import { policySteps, progressLines, versionProgress, type Approver } from '../../agent/decisions/policy-approval.ts';
import type { ApprovalRecord } from '../../agent/ports/run-store.ts';
import type { PolicyEngine } from '../../agent/ports/policy.ts';
import { type AuditCheck, versionsThatRan, violation } from '../run-facts.ts';

export const decisionNotPermitted: AuditCheck = {
  name: 'decision-not-permitted',
  check(facts, ctx) {
    return versionsThatRan(facts).flatMap((version) => {
      const approvals = facts.approvals.filter((a) => a.planVersion === version.version && a.decision === 'approved' && !isAutoApproval(a) && a.policyHash);
      if (approvals.length === 0) return [];
      const where = { planVersion: version.version };
      const found: ReturnType<typeof violation>[] = [];
      const hash = approvals[0]!.policyHash!;
      const engine = ctx.policyOf?.(hash);
      if (!engine)
        return [violation(this.name, facts.run, where, `v${version.version} was approved under policy ${hash.slice(0, 12)}, whose texts are not stored`)];
      const situation = {
        requester: facts.run.requester,
        channel: facts.run.conversation.channel,
        confidence: version.plan.confidence,
        planVersion: version.version,
      };
      const steps = policySteps(version.plan, ctx.riskOf, situation.channel);
      const permits = new Set(engine.rules.filter((rule) => rule.effect === 'permit').map((rule) => rule.id));
      for (const approval of approvals) {
        const named = approval.policyRules ?? [];
        const unknown = named.filter((id) => !permits.has(id));
        if (named.length === 0 || unknown.length > 0)
          found.push(
            violation(
              this.name,
              facts.run,
              where,
              `${approval.userId}'s approval of v${version.version} names ${named.length ? `rules the policy then in force does not permit by (${unknown.join(', ')})` : 'no rule that permitted it'}`,
            ),
          );
        else if (!steps.some((step) => permittedFor(engine, approver(engine, approval), step, situation)))
          found.push(
            violation(
              this.name,
              facts.run,
              where,
              `no rule of policy ${hash.slice(0, 12)} permits ${approval.userId} to approve any step of v${version.version}`,
            ),
          );
      }
      const people = [...new Map(approvals.map((a) => [a.userId, approver(engine, a)])).values()];
      const progress = versionProgress(engine, steps, situation, people);
      if (!progress.approved)
        found.push(
          violation(
            this.name,
            facts.run,
            where,
            `v${version.version} ran without the approvals policy ${hash.slice(0, 12)} needs: ${progressLines(
              version.plan,
              progress.steps.filter((s) => !s.done),
            ).join('; ')}`,
          ),
        );
      return found;
    });
  },
};

/** The approver as the decision saw them: the groups recorded at the click, or (not recorded) every group the policy names. */
function approver(engine: PolicyEngine, approval: ApprovalRecord): Approver {
  return { userId: approval.userId, groups: approval.policyGroups ?? engine.groups };
}

function permittedFor(engine: PolicyEngine, who: Approver, step: ReturnType<typeof policySteps>[number], situation: { requester: string; channel: string }) {
  return engine.decide({ user: who.userId, groups: who.groups, action: 'approve', resource: { kind: 'step', step }, situation }).permitted;
}
