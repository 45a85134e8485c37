/**
 * This replica sweeps (reminders, expiry, stuck steps; each message goes out once across replicas
 * through the store) every minute, or more often when a reminder or expiry is due sooner, and once an
 * hour forgets Slack requests handled over a day ago. Returns the stop function, which waits for a
 * sweep under way.
 */
import { schedule } from 'node-cron';
import type { Db } from '../store/index.ts';
import { forgetInboxBefore, forgetSlackEventsBefore, leaseLagSeconds, openWaits } from '../store/index.ts';
import type { Metrics } from '../observability/metrics.ts';
import { recordOpenWaits } from '../observability/wait-metrics.ts';

const DAY_MS = 24 * 60 * 60_000;

export function scheduleHousekeeping(input: {
  agent: { housekeep(now?: Date): Promise<void> };
  db: Db;
  metrics: Metrics;
  replicaId: string;
  logger: { warn(obj: object, msg?: string): void };
  /** When waits are reminded about and expire (seconds): a sweep comes at least twice within the shorter. */
  waits: { remindAfterS: number; waitTtlS: number };
}): () => Promise<void> {
  const { agent, db, logger } = input;
  let sweeping: Promise<void> | undefined;
  const sweep = () => {
    sweeping ??= agent
      .housekeep()
      // How far the oldest unadopted lease is overdue: a dead replica whose work nobody picked up shows here.
      .then(async () => input.metrics.leaseLag.set(await leaseLagSeconds(db)))
      // Who the runs wait for, and for how long: the dashboard's waits panel and the stale-wait alert.
      .then(async () => recordOpenWaits(input.metrics, await openWaits(db)))
      .catch((error: unknown) => logger.warn({ err: error }, 'housekeeping sweep failed'))
      .finally(() => (sweeping = undefined));
    return sweeping;
  };
  const prune = () =>
    Promise.all([forgetSlackEventsBefore(db, new Date(Date.now() - DAY_MS)), forgetInboxBefore(db, new Date(Date.now() - DAY_MS))]).catch((error: unknown) =>
      logger.warn({ err: error }, 'pruning seen Slack events failed'),
    );
  // A sweep still under way when the next is due is not run twice; the timers alone do not keep the process alive.
  const sweeper = setInterval(() => void sweep(), sweepIntervalMs(input.waits));
  sweeper.unref();
  const options = { name: `tandem:${input.replicaId}:prune-slack-events`, noOverlap: true, suppressMissedWarning: true, unref: true };
  const pruning = schedule('17 * * * *', prune, options);
  return async () => {
    clearInterval(sweeper);
    await pruning.destroy();
    await sweeping;
  };
}

/** Every minute, or half the shorter of the reminder and expiry times when that is sooner (at least a second). */
export function sweepIntervalMs(waits: { remindAfterS: number; waitTtlS: number }): number {
  const halfS = Math.floor(Math.min(waits.remindAfterS, waits.waitTtlS) / 2);
  return Math.min(60, Math.max(1, halfS)) * 1000;
}
