import type { FinishStepInput, RunStore, StepRecord } from '../agent/ports/run-store.ts';

/**
 * The store calls that start and end a step's attempt, each telling `started` of every claim that won
 * and `ended` of every finish that stored. The metrics and the trace both watch attempts this way.
 */
export function stepAttemptHooks(
  store: RunStore,
  hooks: { started(step: StepRecord): void; ended(finish: FinishStepInput): void },
): Pick<RunStore, 'claimStep' | 'finishStep' | 'finishStepAndClaim' | 'requeueInterrupted'> {
  return {
    async claimStep(input) {
      const step = await store.claimStep(input);
      if (step) hooks.started(step);
      return step;
    },
    async finishStep(input) {
      const finished = await store.finishStep(input);
      if (finished) hooks.ended(input);
      return finished;
    },
    async finishStepAndClaim(finish, claims) {
      const result = await store.finishStepAndClaim(finish, claims);
      if (result.finished) hooks.ended(finish);
      result.claimed.forEach((step) => hooks.started(step));
      return result;
    },
    // After a restart, attempts a dead process left running end cancelled in bulk (resume): each still ends.
    async requeueInterrupted(attempts, why) {
      const requeued = await store.requeueInterrupted(attempts, why);
      for (const key of requeued) hooks.ended({ ...key, status: 'cancelled', error: { message: `interrupted by a restart (${why})` } });
      return requeued;
    },
  };
}
