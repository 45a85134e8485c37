/**
 * The timers a replica runs once it has resumed: every few seconds it delivers what runs owe their
 * threads (a dead peer left it owed, or a delivery failed), and with peers on the store it adopts runs
 * whose replica died (its lease ran out). Neither timer alone keeps a process alive.
 */
import type { BackgroundWork } from './background-work.ts';
import type { AgentContext } from '../context.ts';
import { sweepOwed } from '../delivery/owed-delivery.ts';
import { resumeRuns } from '../execution/resume.ts';

/** How often this replica looks for owed messages nobody is delivering. */
const OWED_SWEEP_MS = 5_000;

export interface ReplicaTimers {
  /** Starts whichever timer is not running yet; a no-op once stopped. */
  start(): void;
  stop(): void;
}

export function createReplicaTimers(ctx: AgentContext, work: BackgroundWork): ReplicaTimers {
  let owedSweep: ReturnType<typeof setInterval> | undefined;
  let adoption: ReturnType<typeof setInterval> | undefined;
  let stopped = false;
  let scanning = false;

  const scanForAdoption = () => {
    if (scanning) return; // a slow scan is not doubled up
    scanning = true;
    void resumeRuns(ctx, { startUp: false })
      .catch((error: unknown) => ctx.logger.warn({ err: error }, 'adoption scan failed'))
      .finally(() => (scanning = false));
  };

  return {
    start() {
      if (stopped) return;
      if (!owedSweep) {
        owedSweep = setInterval(() => work.track(sweepOwed(ctx, { startUp: false }), 'delivering owed messages'), OWED_SWEEP_MS);
        owedSweep.unref?.();
      }
      if (ctx.soleOwner || adoption) return;
      adoption = setInterval(scanForAdoption, ctx.leases.settings.adoptEveryMs);
      adoption.unref?.();
    },
    stop() {
      stopped = true;
      clearInterval(owedSweep);
      clearInterval(adoption);
    },
  };
}
