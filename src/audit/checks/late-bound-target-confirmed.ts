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
import { type AuditCheck, type AuditContext, type RunFacts, violation } from '../run-facts.ts';
import { confirmerNotPermitted } from './confirm-permission.ts';

/** True when an executed arg differs from the confirmed value of the same target (keys compared in a fixed order). */
function differs(confirmed: Record<string, unknown>, executed: Record<string, unknown>): boolean {
  return Object.entries(confirmed).some(([name, value]) => canonicalJson(value) !== canonicalJson(executed[name]));
}

/**
 * Which step ids held a person's or a model's words when a step started, judged as the run-time gate
 * (target-confirmation.ts) judged it: from the step rows of versions that ran, never from a version that was
 * only proposed (a Modify can reuse an id for a read of a fixed number). A forward step of version V started
 * before any later version had rows; a rollback step starts after every version's.
 */
function wordsSeenAtRunTime(facts: RunFacts, ctx: AuditContext): { forward(version: number): Set<string>; rollback: Set<string> } {
  const source = (step: RunFacts['steps'][number]) => ({ stepId: step.stepId, tool: step.tool, args: step.plannedArgs });
  return {
    forward: (version) => wordSteps(facts.steps.filter((step) => step.planVersion <= version).map(source), ctx.toolOf),
    rollback: wordSteps(facts.steps.map(source), ctx.toolOf),
  };
}

export const lateBoundTargetConfirmed: AuditCheck = {
  name: 'late-bound-target-confirmed',
  check(facts, ctx) {
    const confirmations = facts.confirmations;
    if (confirmations === null) return [];
    const ran = new Set(facts.attempts.map((attempt) => `${attempt.planVersion}/${attempt.stepId}`));
    const words = wordsSeenAtRunTime(facts, ctx);
    return facts.versions.flatMap((version) => {
      const forwardWords = words.forward(version.version);
      // Rollback steps too: they run on an Abort, with the same Confirm rule.
      return [...version.plan.steps.map((step) => ({ step, words: forwardWords })), ...version.plan.rollback.map((step) => ({ step, words: words.rollback }))]
        .filter(({ step }) => ran.has(`${version.version}/${step.id}`) && riskOfTool(ctx, step.tool) !== 'read')
        .filter(({ step, words }) => lateBoundTargetNames(ctx.toolOf(step.tool), step.args, words).length > 0)
        .map(({ step }) => step)
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
        });
    });
  },
};
