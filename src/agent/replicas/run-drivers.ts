/**
 * The runs this process drives, one RunDriver each: started (or woken) by a kick, stopped when a run
 * ends or a peer takes it over, and drained on shutdown. After shutdown starts, nothing new is driven.
 */
import type { BackgroundWork } from './background-work.ts';
import type { AgentContext } from '../context.ts';
import type { DriverStop } from '../ports/effects.ts';

/** What this module needs of a run's driver (execution/run-driver.ts; the wiring passes the factory). */
export interface Driver {
  drive(): Promise<void>;
  wake(): void;
  drain(): void;
  halt(): void;
  abandon(): void;
  /** A wake came while the last drive was ending: drive once more. */
  readonly missedWake: boolean;
}

/** About ten minutes of drives failing 2 s apart. */
const MAX_REDRIVES = 300;

export interface RunDrivers {
  readonly accepting: boolean;
  kick(ctx: AgentContext, runId: string): void;
  stop(runId: string, kind: DriverStop): Promise<boolean>;
  /** A peer adopted the run (this replica looked dead): stop here without settling anything. */
  abandon(runId: string): void;
  /** Lets running steps reach a recorded state within the deadline, then halts what is left. */
  shutdown(deadlineMs: number): Promise<void>;
}

/** Drives in a row that failed before a person is told: a passing blip is driven past without anyone. */
const TELL_AFTER_FAILURES = 3;

/**
 * `tell`: a run whose drives keep failing is handed to a person (the wiring passes execution's
 * escalateDriverFailure); true when one now decides, false when the store could not take it (drive again).
 */
export function createRunDrivers(
  newDriver: (ctx: AgentContext, runId: string) => Driver,
  work: BackgroundWork,
  tell?: (ctx: AgentContext, runId: string, error: unknown) => Promise<boolean>,
  isStoreOutage: (error: unknown) => boolean = () => false,
): RunDrivers {
  const drivers = new Map<string, { driver: Driver; done: Promise<void> }>();
  /** Runs that are ending: nothing may drive them again. */
  const stopped = new Set<string>();
  /** Runs whose last drives failed in a row, and how many times: each is driven again after a growing pause. */
  const failures = new Map<string, number>();
  let accepting = true;

  const kick = (ctx: AgentContext, runId: string): void => {
    if (!accepting || stopped.has(runId)) return;
    const active = drivers.get(runId);
    if (active) return active.driver.wake();
    const driver = newDriver(ctx, runId);
    const done = driver
      .drive()
      .then(
        () => void failures.delete(runId),
        (error: unknown) => {
          // A system error (the store went away mid-run): drive again after a pause, which first settles the
          // steps that were running (reconciled, never repeated blindly). The pause grows to 2 s, so a store
          // that is back is used within seconds; after ten minutes of failures the run waits for a restart.
          const tries = (failures.get(runId) ?? 0) + 1;
          failures.set(runId, tries);
          const redrive = () => {
            if (tries <= MAX_REDRIVES) setTimeout(() => kick(ctx, runId), Math.min(250 * 2 ** (tries - 1), 2_000)).unref?.();
          };
          // Failing again and again is not a blip: a person is told what failed (Retry / Abort). A store that
          // cannot take the escalation is down: drive again until it is back.
          // A store that is down is waited out, however long (within MAX_REDRIVES): nobody can act on it in the thread.
          if (tries < TELL_AFTER_FAILURES || !tell || isStoreOutage(error)) redrive();
          else
            void tell(ctx, runId, error).then(
              (told) => (told ? failures.delete(runId) : redrive()),
              () => redrive(),
            );
          throw error;
        },
      )
      .finally(() => {
        if (drivers.get(runId)?.driver === driver) drivers.delete(runId);
        if (driver.missedWake) kick(ctx, runId);
      });
    drivers.set(runId, { driver, done });
    work.track(done, 'executing run', runId);
  };

  return {
    get accepting() {
      return accepting;
    },
    kick,
    async stop(runId, kind) {
      if (kind === 'cancel' || kind === 'abort') stopped.add(runId);
      const active = drivers.get(runId);
      if (!active) return false;
      if (kind === 'drain') active.driver.drain();
      else active.driver.halt();
      await active.done.catch(() => undefined);
      return true;
    },
    abandon: (runId) => drivers.get(runId)?.driver.abandon(),
    async shutdown(deadlineMs) {
      accepting = false;
      for (const { driver } of drivers.values()) driver.drain();
      const settled = Promise.allSettled([...drivers.values()].map((d) => d.done));
      const timer = new Promise((resolve) => setTimeout(resolve, deadlineMs).unref());
      if ((await Promise.race([settled.then(() => 'done'), timer])) !== 'done') {
        for (const { driver } of drivers.values()) driver.halt();
        await settled;
      }
    },
  };
}
