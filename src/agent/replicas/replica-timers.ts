/**
 * The timers a replica runs once it has resumed: every few seconds it delivers what runs owe their
 * threads (a dead peer left it owed, or a delivery failed), and with peers on the store it adopts runs
 * whose replica died (its lease ran out). Neither timer alone keeps a process alive.
 */
import type { BackgroundWork } from './background-work.ts';
import type { LogPort } from '../ports/logger.ts';

export interface ReplicaTimers {
  /** Starts whichever timer is not running yet; a no-op once stopped. */
  start(): void;
  stop(): void;
}

/** What the timers do and when; the wiring passes the work (delivery's sweep, resume's adoption scan). */
export interface ReplicaTimerWork {
  sweepOwed(): Promise<void>;
  adoptOrphans(): Promise<void>;
  /** With the store to itself, no peer can die: no adoption timer. */
  soleOwner: boolean;
  adoptEveryMs: number;
  /** How often this replica looks for owed messages nobody is delivering (ReplicaSettings.owedRetryMs). */
  owedSweepMs: number;
  logger: LogPort;
}

export function createReplicaTimers(timed: ReplicaTimerWork, work: BackgroundWork): ReplicaTimers {
  let owedSweep: ReturnType<typeof setInterval> | undefined;
  let adoption: ReturnType<typeof setInterval> | undefined;
  let stopped = false;
  let scanning = false;

  const scanForAdoption = () => {
    if (scanning) return; // a slow scan is not doubled up
    scanning = true;
    void timed
      .adoptOrphans()
      .catch((error: unknown) => timed.logger.warn({ err: error }, 'adoption scan failed'))
      .finally(() => (scanning = false));
  };

  return {
    start() {
      if (stopped) return;
      if (!owedSweep) {
        owedSweep = setInterval(() => work.track(timed.sweepOwed(), 'delivering owed messages'), timed.owedSweepMs);
        owedSweep.unref?.();
      }
      if (timed.soleOwner || adoption) return;
      adoption = setInterval(scanForAdoption, timed.adoptEveryMs);
      adoption.unref?.();
    },
    stop() {
      stopped = true;
      clearInterval(owedSweep);
      clearInterval(adoption);
    },
  };
}
