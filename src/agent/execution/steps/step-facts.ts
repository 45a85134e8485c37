/** Facts derived from a run's recorded steps that several parts of the agent need the same way. */
import type { EscalationRecord, StepRecord } from '../../ports/run-store.ts';

/** Outputs of forward steps that succeeded, by step id; a later plan version's step wins over an earlier one. */
export function succeededOutputs(steps: readonly StepRecord[]): Map<string, Record<string, unknown>> {
  const outputs = new Map<string, Record<string, unknown>>();
  for (const step of [...steps].sort((a, b) => a.planVersion - b.planVersion)) {
    if (step.kind === 'forward' && step.status === 'succeeded' && step.output) outputs.set(step.stepId, step.output);
  }
  return outputs;
}

/** Ids of forward steps that already ran successfully: a new plan version may read them but not reuse them. */
export function completedStepIds(steps: readonly StepRecord[]): Set<string> {
  return new Set(steps.filter((step) => step.kind === 'forward' && step.status === 'succeeded').map((step) => step.stepId));
}

/** Steps of this version whose failure waits for a person's answer (an open escalation of its own). */
export function escalatedSteps(escalations: readonly Pick<EscalationRecord, 'planVersion' | 'stepId' | 'status'>[], version: number): string[] {
  return escalations.flatMap((escalation) =>
    escalation.status === 'open' && escalation.planVersion === version && escalation.stepId !== null ? [escalation.stepId] : [],
  );
}
