/**
 * Which steps may start now (every step whose dependencies all succeeded) and which can never
 * run because something they wait for failed or was skipped. Pure: the executor stores the result.
 */
import type { StepStatus } from '../ports/run-store.ts';
import type { GraphStep } from '../model/plan/plan-graph.ts';

const DEAD: ReadonlySet<StepStatus> = new Set(['failed', 'uncertain', 'skipped', 'cancelled']);

export interface DispatchDecision {
  ready: string[];
  skip: { stepId: string; reason: string }[];
}

/** `steps` in plan order; a step with no recorded status counts as pending. */
export function dispatch(steps: readonly GraphStep[], statusOf: (stepId: string) => StepStatus | undefined): DispatchDecision {
  const status = new Map(steps.map((step) => [step.id, statusOf(step.id) ?? 'pending']));
  const skip: DispatchDecision['skip'] = [];
  // Skipping spreads down the graph; repeat until nothing changes (plans are small).
  for (let changed = true; changed;) {
    changed = false;
    for (const step of steps) {
      if (status.get(step.id) !== 'pending') continue;
      const dead = step.dependsOn.find((dep) => DEAD.has(status.get(dep) ?? 'pending'));
      if (!dead) continue;
      status.set(step.id, 'skipped');
      skip.push({ stepId: step.id, reason: `skipped: ${dead} ${status.get(dead) === 'skipped' ? 'was skipped' : status.get(dead)}` });
      changed = true;
    }
  }
  const ready = steps
    .filter((step) => status.get(step.id) === 'pending' && step.dependsOn.every((dep) => status.get(dep) === 'succeeded'))
    .map((step) => step.id);
  return { ready, skip };
}

/** Every step that waits on `stepId`, directly or through others. */
export function descendantsOf(steps: readonly GraphStep[], stepId: string): Set<string> {
  const result = new Set<string>();
  for (let changed = true; changed;) {
    changed = false;
    for (const step of steps) {
      if (result.has(step.id)) continue;
      if (step.dependsOn.some((dep) => dep === stepId || result.has(dep))) {
        result.add(step.id);
        changed = true;
      }
    }
  }
  return result;
}
