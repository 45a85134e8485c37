/**
 * A chain of steps pays one commit per step, not two: when a step succeeds and the rules would start
 * dependants at once, its finish waits a moment so that their claims go out with it in one transaction
 * (store.finishStepAndClaim). A dependant still starts only once the result it depends on is durable:
 * its claim commits in the same transaction as that result, or, arriving late, after it.
 */
import type { ClaimStepInput, FinishStepInput, StepRecord, StepsPort } from '../ports/run-store.ts';

/** The two step writes a step runner makes. */
export type StepWrites = Pick<StepsPort, 'claimStep' | 'finishStep'>;

interface HeldFinish {
  finish: FinishStepInput;
  /** Dependants whose claims should go with this finish and have not come yet. */
  expected: Set<string>;
  claims: { input: ClaimStepInput; settle(record: StepRecord | undefined): void; fail(error: unknown): void }[];
  /** Resolves with whether the finish stored, once it was written. */
  written: Promise<boolean>;
  settle(finished: boolean): void;
  fail(error: unknown): void;
}

export interface JoinedClaims extends StepWrites {
  /** Finishes a step together with the claims of `dependants` that come in this turn of the event loop. */
  finishWith(finish: FinishStepInput, dependants: readonly string[]): Promise<boolean>;
}

export function joinedClaims(store: StepsPort): JoinedClaims {
  /** Held finishes by dependant step id (what the dependant's claim joins). */
  const waitingFor = new Map<string, HeldFinish>();

  const write = (held: HeldFinish) => {
    // A dependant expected but not come yet stays listed: its late claim waits for this write.
    const claims = held.claims;
    held.expected = new Set();
    for (const claim of claims) if (waitingFor.get(claim.input.stepId) === held) waitingFor.delete(claim.input.stepId);
    store
      .finishStepAndClaim(
        held.finish,
        claims.map((claim) => claim.input),
      )
      .then(
        ({ finished, claimed }) => {
          held.settle(finished);
          for (const claim of claims) claim.settle(claimed.find((record) => record.stepId === claim.input.stepId));
        },
        (error: unknown) => {
          held.fail(error);
          for (const claim of claims) claim.fail(error);
        },
      );
  };

  return {
    finishStep: (input) => store.finishStep(input),
    finishWith(finish, dependants) {
      if (dependants.length === 0) return store.finishStep(finish);
      let settle!: (finished: boolean) => void;
      let fail!: (error: unknown) => void;
      const written = new Promise<boolean>((resolve, reject) => ((settle = resolve), (fail = reject)));
      const held: HeldFinish = { finish, expected: new Set(dependants), claims: [], written, settle, fail };
      for (const stepId of dependants) waitingFor.set(stepId, held);
      // A dependant that stops before its claim (its args fail, it needs a Confirm) must not hold the finish up.
      setTimeout(() => held.expected.size > 0 && write(held), 0);
      return written;
    },
    claimStep(input) {
      const held = waitingFor.get(input.stepId);
      if (!held) return store.claimStep(input);
      if (!held.expected.has(input.stepId)) {
        // Too late to go with the finish: claim once it is durable, and only if it stored.
        waitingFor.delete(input.stepId);
        return held.written.then((finished) => (finished ? store.claimStep(input) : undefined));
      }
      held.expected.delete(input.stepId);
      const claimed = new Promise<StepRecord | undefined>((settle, fail) => held.claims.push({ input, settle, fail }));
      if (held.expected.size === 0) write(held);
      return claimed;
    },
  };
}
