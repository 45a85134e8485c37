/**
 * A write or destructive step whose target (repository, number, tag, ref, workflow, channel) was
 * filled at run time from a person's answer or a model's text ran without an approver's Confirm of
 * it — by an approver other than the requester when the step is destructive — or acted on other
 * values than the ones confirmed. Reads the run's `confirmations` (null: a store that records none).
 * Who confirmed is judged by the policy in force when they did (confirm-permission.ts), not by today's settings.
 */
import { riskOfTool } from '../../agent/decisions/approval-policy.ts';
import { canonicalJson } from '../../agent/text/canonical-json.ts';
import { lateBoundTargetNames, wordSteps } from '../../agent/model/step-targets.ts';
import { type AuditCheck, violation } from '../run-facts.ts';
import { confirmerNotPermitted } from './confirm-permission.ts';

/** True when an executed arg differs from the confirmed value of the same target (keys compared in a fixed order). */
function differs(confirmed: Record<string, unknown>, executed: Record<string, unknown>): boolean {
  return Object.entries(confirmed).some(([name, value]) => canonicalJson(value) !== canonicalJson(executed[name]));
}

export const lateBoundTargetConfirmed: AuditCheck = {
  name: 'late-bound-target-confirmed',
  check(facts, ctx) {
    const confirmations = facts.confirmations;
    if (confirmations === null) return [];
    const sources = facts.versions.flatMap((version) => version.plan.steps.map((step) => ({ stepId: step.id, tool: step.tool, args: step.args })));
    const words = wordSteps(sources, ctx.toolOf);
    const ran = new Set(facts.attempts.map((attempt) => `${attempt.planVersion}/${attempt.stepId}`));
    return facts.versions.flatMap((version) =>
      // Rollback steps too: they run on an Abort, with the same Confirm rule.
      [...version.plan.steps, ...version.plan.rollback]
        .filter((step) => ran.has(`${version.version}/${step.id}`) && riskOfTool(ctx, step.tool) !== 'read')
        .filter((step) => lateBoundTargetNames(ctx.toolOf(step.tool), step.args, words).length > 0)
        .flatMap((step) => {
          const destructive = riskOfTool(ctx, step.tool) === 'destructive';
          const confirmed = confirmations.find((c) => c.planVersion === version.version && c.stepId === step.id && c.status === 'confirmed');
          const where = { planVersion: version.version, stepId: step.id };
          if (!confirmed)
            return [violation(this.name, facts.run, where, `${step.id} of v${version.version} acted on a target filled at run time without a Confirm`)];
          if (destructive && confirmed.decidedBy === facts.run.requester)
            return [
              violation(
                this.name,
                facts.run,
                where,
                `${step.id} of v${version.version} is destructive and its target was confirmed only by its requester ${facts.run.requester}`,
              ),
            ];
          const notPermitted = confirmed.decidedBy ? confirmerNotPermitted(facts, ctx, { version: version.version, step, confirmation: confirmed }) : undefined;
          if (notPermitted) return [violation(this.name, facts.run, where, notPermitted)];
          const other = facts.attempts.find((a) => a.planVersion === version.version && a.stepId === step.id && differs(confirmed.targets, a.executedArgs));
          if (other)
            return [
              violation(
                this.name,
                facts.run,
                where,
                `${step.id} of v${version.version} (attempt ${other.attempt}) acted on other target values than the ones confirmed`,
              ),
            ];
          return [];
        }),
    );
  },
};
