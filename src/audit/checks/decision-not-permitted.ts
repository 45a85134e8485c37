/**
 * Under TANDEM_POLICY (decision 028) each approval records the hash of the policy in force and the rules
 * that permitted it. Each is judged by its own policy (its texts are kept by hash; a reload may come between
 * two approvals of one version): a decision whose policy is not stored, that names no rule or a rule the policy
 * does not have as a permit, that no rule of it permits for any step, or a version that ran without every step
 * having the approvals its rule needs under the policy of the last approval (the click that let it run).
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
      // In the order they were made: the last one is the click that let the version run.
      const approvals = facts.approvals
        .filter((a) => a.planVersion === version.version && a.decision === 'approved' && !isAutoApproval(a) && a.policyHash)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
      if (approvals.length === 0) return [];
      const where = { planVersion: version.version };
      const situation = {
        requester: facts.run.requester,
        channel: facts.run.conversation.channel,
        confidence: version.plan.confidence,
        planVersion: version.version,
      };
      const steps = policySteps(version.plan, ctx.riskOf, situation.channel);
      const missing = new Set<string>();
      const found: ReturnType<typeof violation>[] = [];
      // A reload between two approvals of one version is allowed: each approval is judged by the policy in force at its click.
      for (const approval of approvals) {
        const hash = approval.policyHash!;
        const engine = ctx.policyOf?.(hash);
        if (!engine) {
          if (!missing.has(hash))
            found.push(
              violation(this.name, facts.run, where, `v${version.version} was approved under policy ${hash.slice(0, 12)}, whose texts are not stored`),
            );
          missing.add(hash);
          continue;
        }
        const problem = approvalProblem(engine, approval, steps, situation);
        if (problem) found.push(violation(this.name, facts.run, where, problem));
      }
      // Whether the version was fully approved was asked at the last click, under the policy then in force, of everyone so far.
      const lastHash = approvals.at(-1)!.policyHash!;
      const last = ctx.policyOf?.(lastHash);
      if (!last) return found;
      const people = [...new Map(approvals.map((a) => [a.userId, approver(last, a)])).values()];
      const progress = versionProgress(last, steps, situation, people);
      if (!progress.approved)
        found.push(
          violation(
            this.name,
            facts.run,
            where,
            `v${version.version} ran without the approvals policy ${lastHash.slice(0, 12)} needs: ${progressLines(
              version.plan,
              progress.steps.filter((s) => !s.done),
            ).join('; ')}`,
          ),
        );
      return found;
    });
  },
};

type Situation = { requester: string; channel: string; confidence: number; planVersion: number };

/** What is wrong with one approval under its own policy: no rule named, a rule that policy has not as a permit, or no step it may approve. */
function approvalProblem(engine: PolicyEngine, approval: ApprovalRecord, steps: ReturnType<typeof policySteps>, situation: Situation): string | undefined {
  const permits = new Set(engine.rules.filter((rule) => rule.effect === 'permit').map((rule) => rule.id));
  const named = approval.policyRules ?? [];
  const unknown = named.filter((id) => !permits.has(id));
  const v = `v${situation.planVersion}`;
  if (named.length === 0) return `${approval.userId}'s approval of ${v} names no rule that permitted it`;
  if (unknown.length > 0) return `${approval.userId}'s approval of ${v} names rules the policy then in force does not permit by (${unknown.join(', ')})`;
  if (!steps.some((step) => permittedFor(engine, approver(engine, approval), step, situation)))
    return `no rule of policy ${engine.hash.slice(0, 12)} permits ${approval.userId} to approve any step of ${v}`;
  return undefined;
}

/** The approver as the decision saw them: the groups recorded at the click, or (not recorded) every group the policy names. */
function approver(engine: PolicyEngine, approval: ApprovalRecord): Approver {
  return { userId: approval.userId, groups: approval.policyGroups ?? engine.groups };
}

function permittedFor(engine: PolicyEngine, who: Approver, step: ReturnType<typeof policySteps>[number], situation: { requester: string; channel: string }) {
  return engine.decide({ user: who.userId, groups: who.groups, action: 'approve', resource: { kind: 'step', step }, situation }).permitted;
}
