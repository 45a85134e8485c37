/**
 * Whether the person who confirmed a late-bound target was allowed to, judged by the policy in force when they
 * confirmed — as approvals and auto-runs are (decision-not-permitted, auto-run-not-permitted) — never by the
 * settings the audit runs with today, so a later change of TANDEM_APPROVERS or the policy never turns an old valid
 * Confirm into a violation, and one nobody was allowed to give is reported.
 *
 * A Confirm records the policy's hash and the confirmer's groups in its `target-confirmed` event (decision 046). One
 * stored before that is judged by the policy its version was approved under, the confirmer counted in every group
 * that policy names (their membership then is not known: a violation is never a membership question); only a run
 * from before policies were recorded at all falls back to the approver list the audit is given.
 */
import { isAutoApproval } from '../../agent/decisions/approval-policy.ts';
import { policyStep } from '../../agent/decisions/policy-approval.ts';
import type { PlanStep } from '../../agent/model/plan/plan.ts';
import type { AuditConfirmation, AuditContext, RunFacts } from '../run-facts.ts';

interface Confirmed {
  version: number;
  step: Pick<PlanStep, 'id' | 'tool'>;
  confirmation: AuditConfirmation;
}

/** Why the confirmer was not allowed, as the violation says it; undefined when they were (or it cannot be told). */
export function confirmerNotPermitted(facts: RunFacts, ctx: AuditContext, { version, step, confirmation }: Confirmed): string | undefined {
  const user = confirmation.decidedBy!;
  const recorded = confirmation.policy;
  const approvedUnder = facts.approvals.find((a) => a.planVersion === version && a.decision === 'approved' && !isAutoApproval(a) && a.policyHash)?.policyHash;
  const hash = recorded?.hash ?? approvedUnder;
  if (!hash) return ctx.isApprover(user) === false ? `${step.id}'s target was confirmed by ${user}, who is not an approver` : undefined;
  const engine = ctx.policyOf?.(hash);
  const named = hash.slice(0, 12);
  if (!engine) return recorded ? `${step.id}'s target was confirmed by ${user} under policy ${named}, whose texts are not stored` : undefined;
  const channel = facts.run.conversation.channel;
  // Asked exactly as the Confirm click asks: the step with the values confirmed, forward or rollback as it is in its plan.
  const rollback = facts.versions.find((v) => v.version === version)?.plan.rollback.some((r) => r.id === step.id) ?? false;
  const asked = policyStep({ id: step.id, tool: step.tool, args: confirmation.targets }, ctx.riskOf(step.tool), channel, rollback);
  const decision = engine.decide({
    user,
    groups: recorded?.groups ?? engine.groups,
    action: 'confirm',
    resource: { kind: 'step', step: asked },
    situation: { requester: facts.run.requester, channel },
  });
  if (decision.permitted) return undefined;
  const when = recorded ? 'in force when they confirmed' : `v${version} was approved under; the Confirm recorded no policy`;
  return `${step.id}'s target was confirmed by ${user}, whom policy ${named} (${when}) does not permit to confirm it`;
}
