/**
 * The wiring's one performer of effects (ports/effects.ts): the only code that starts, wakes or stops this
 * process's run drivers, delivers what a run owes its thread, plans a run again in the background, hands
 * work to the background, or replans a run. Everything else in the agent says what should happen next as an Effect.
 */
import type { AgentContext } from './context.ts';
import type { Effect, EffectsPort } from './ports/effects.ts';
import { planRun } from './planning/plan-run.ts';
import { replan } from './planning/replan.ts';
import type { BackgroundWork } from './replicas/background-work.ts';
import type { RunDrivers } from './replicas/run-drivers.ts';
import { deliverOwed } from './delivery/owed-delivery.ts';

/** `context()`: the context the drivers and planners work with (built with this runner in it). */
export function createEffectsRunner(drivers: RunDrivers, work: BackgroundWork, context: () => AgentContext): EffectsPort {
  return {
    async perform(effect: Effect) {
      const ctx = context();
      switch (effect.kind) {
        case 'drive':
          return drivers.kick(ctx, effect.runId);
        case 'deliver':
          return deliverOwed(ctx, effect.runId);
        case 'stop-driver':
          await drivers.stop(effect.runId, effect.stop);
          return;
        case 'replan':
          return replan(ctx, effect.runId, effect.reason, effect.from);
        case 'plan': {
          const { run, answers } = effect;
          return work.track(
            ctx.replica.leases.during(run.id, () => planRun(ctx, run, { answers })),
            'planning after answers',
            run.id,
          );
        }
        case 'in-background':
          return work.track(effect.work, effect.what, effect.runId);
      }
    },
  };
}
