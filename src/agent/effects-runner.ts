/**
 * The wiring's one performer of effects (ports/effects.ts): the only code that starts, wakes or stops this
 * process's run drivers, ends a run a person stopped, plans or replans a run, tells the thread of escalations a
 * decision closed, or hands work to the background. Everything else in the agent says what should happen next
 * as an Effect, or returns it with what it decided (`Decided`), and the wiring performs it (`performNext`).
 */
import type { AgentContext } from './context.ts';
import type { Decided, Effect, EffectsPort } from './ports/effects.ts';
import { planRun } from './planning/plan-run.ts';
import { replan } from './planning/replan.ts';
import type { BackgroundWork } from './replicas/background-work.ts';
import type { RunDrivers } from './replicas/run-drivers.ts';
import { tellEscalationsClosed } from './waits/closed-escalations.ts';
import { endStoppedRun } from './decisions/run-abort.ts';

/** `context()`: the context the drivers and planners work with (built with this runner in it). */
export function createEffectsRunner(drivers: RunDrivers, work: BackgroundWork, context: () => AgentContext): EffectsPort {
  const runner: EffectsPort = {
    async perform(effect: Effect) {
      const ctx = context();
      switch (effect.kind) {
        case 'drive':
          return drivers.kick(ctx, effect.runId);
        case 'stop-driver':
          await drivers.stop(effect.runId, effect.stop);
          return;
        case 'end-run':
          // Stopped first: nothing starts after this, and what runs ends and is recorded before the rest is
          // cancelled or rolled back.
          await drivers.stop(effect.runId, effect.end === 'cancelled' ? 'cancel' : 'abort');
          return endStoppedRun(ctx, effect.runId, effect.end, effect.why);
        case 'replan':
          // The new version's own next step (an auto-run is driven) while the caller still holds the run.
          return performAll(runner, await replan(ctx, effect.runId, effect.reason, effect.from));
        case 'plan': {
          const { run, answers } = effect;
          return work.track(
            ctx.replica.leases.during(run.id, async () => performAll(runner, await planRun(ctx, run, { answers }))),
            'planning after answers',
            run.id,
          );
        }
        case 'tell-closed':
          return tellEscalationsClosed(ctx, effect.run, effect.closed, effect.why);
        case 'in-background':
          return work.track(effect.work, effect.what, effect.runId);
      }
    },
  };
  return runner;
}

async function performAll(effects: EffectsPort, next: readonly Effect[]): Promise<void> {
  for (const effect of next) await effects.perform(effect);
}

/**
 * Performs what a decision or planning step returned, in order, then lets go of the lease it took for the
 * wiring: a driver started here takes the run before it is let go of (decision 042's order).
 */
export async function performNext<R>(ctx: Pick<AgentContext, 'effects' | 'replica'>, decided: Decided<R>): Promise<R> {
  try {
    await performAll(ctx.effects, decided.next);
  } finally {
    if (decided.holding) await ctx.replica.leases.release(decided.holding).catch(() => undefined);
  }
  return decided.result;
}
