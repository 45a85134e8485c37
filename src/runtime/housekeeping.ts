/**
 * Every minute this replica sweeps (reminders, expiry, re-pings, stuck steps; each message goes out
 * once across replicas through the store), and once an hour forgets Slack requests handled over a day ago.
 * Returns the stop function, which waits for a sweep under way.
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
  // A sweep longer than a minute is skipped, not run twice; the timers alone do not keep the process alive.
  const options = { name: `tandem:${input.replicaId}:housekeeping`, noOverlap: true, suppressMissedWarning: true, unref: true };
  const tasks = [schedule('* * * * *', sweep, options), schedule('17 * * * *', prune, { ...options, name: `tandem:${input.replicaId}:prune-slack-events` })];
  return async () => {
    for (const task of tasks) await task.destroy();
    await sweeping;
  };
}
