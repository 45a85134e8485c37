/**
 * A write or destructive step whose target (repository, number, tag, ref, workflow, channel) was
 * filled at run time from a person's answer or a model's text ran without an approver's Confirm of
 * it — by an approver other than the requester when the step is destructive. Reads `confirmations`;
 * while the store records none (null) there is nothing to hold the run to and the check is silent.
 */
import { lateBoundTargetNames, wordSteps } from '../../agent/step-targets.ts';
import { type AuditCheck, violation } from '../run-facts.ts';

export const lateBoundTargetConfirmed: AuditCheck = {
  name: 'late-bound-target-confirmed',
  check(facts, ctx) {
    const confirmations = facts.confirmations;
    if (confirmations === null) return [];
    const sources = facts.versions.flatMap((version) => version.plan.steps.map((step) => ({ stepId: step.id, tool: step.tool, args: step.args })));
    const words = wordSteps(sources, ctx.toolOf);
    const ran = new Set(facts.attempts.map((attempt) => `${attempt.planVersion}/${attempt.stepId}`));
    return facts.versions.flatMap((version) =>
      version.plan.steps
        .filter((step) => ran.has(`${version.version}/${step.id}`) && (ctx.riskOf(step.tool) ?? 'destructive') !== 'read')
        .filter((step) => lateBoundTargetNames(ctx.toolOf(step.tool), step.args, words).length > 0)
        .flatMap((step) => {
          const destructive = (ctx.riskOf(step.tool) ?? 'destructive') === 'destructive';
          const confirmed = confirmations.find((c) => c.planVersion === version.version && c.stepId === step.id && c.status === 'confirmed');
          const where = { planVersion: version.version, stepId: step.id };
          if (!confirmed) return [violation(this.name, facts.run, where, `${step.id} of v${version.version} acted on a target filled at run time without a Confirm`)];
          if (destructive && confirmed.decidedBy === facts.run.requester) return [violation(this.name, facts.run, where, `${step.id} of v${version.version} is destructive and its target was confirmed only by its requester ${facts.run.requester}`)];
          if (confirmed.decidedBy && ctx.isApprover(confirmed.decidedBy) === false) return [violation(this.name, facts.run, where, `${step.id}'s target was confirmed by ${confirmed.decidedBy}, who is not an approver`)];
          return [];
        }),
    );
  },
};
