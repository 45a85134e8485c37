/** A step started although no approval of its plan version is recorded. */
import { type AuditCheck, violation } from '../run-facts.ts';

export const stepRanWithoutApproval: AuditCheck = {
  name: 'step-ran-without-approval',
  check(facts) {
    const approved = new Set(facts.approvals.filter((a) => a.decision === 'approved').map((a) => a.planVersion));
    // The first attempt of each step is enough to say it ran.
    const firsts = new Map(
      facts.attempts
        .filter((attempt) => !approved.has(attempt.planVersion))
        .map((attempt) => [`${attempt.planVersion}/${attempt.stepId}`, attempt] as const)
        .reverse(),
    );
    return [...firsts.values()].map((attempt) =>
      violation(
        this.name,
        facts.run,
        attempt,
        `${attempt.stepId} of v${attempt.planVersion} ran (attempt ${attempt.attempt}, ${attempt.startedAt.toISOString()}) but no approval of v${attempt.planVersion} is recorded`,
      ),
    );
  },
};
