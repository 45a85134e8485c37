import { createTask, type ScheduledTask } from 'node-cron';
import type { LogPort } from '../agent/ports/logger.ts';
import { previousFireTime } from './next-fire-times.ts';
import type { ScheduleRecord, SchedulesPort } from './schedules-port.ts';

export interface SchedulerOptions {
  store: SchedulesPort;
  /** This process's id, recorded on each slot it fires. */
  replicaId: string;
  /** Starts the scheduled run; called once per slot across every replica. A throw is logged, not retried. */
  fire: (schedule: ScheduleRecord, slot: Date) => Promise<void>;
  logger: LogPort;
  /** The "now" used to find missed slots (node-cron itself always runs on the real clock). */
  clock?: () => Date;
  /** How often to pick up schedules added or removed by other replicas and catch up missed slots. */
  checkIntervalMs?: number;
  /** Fire rows older than this are pruned on each check (each schedule's latest is kept); default 7 days. */
  fireRetentionMs?: number;
}

export interface Scheduler {
  /** Loads the schedules, catches up missed slots, and starts the periodic check. */
  start(): Promise<void>;
  /** Syncs the running cron tasks with the stored schedules (call after adding or removing one). */
  reload(): Promise<void>;
  /** Fires, once, the most recent slot of each schedule that no replica fired. */
  catchUp(): Promise<void>;
  stop(): Promise<void>;
}

interface Running {
  key: string;
  task: ScheduledTask;
}

export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, replicaId, logger } = options;
  const now = options.clock ?? (() => new Date());
  const running = new Map<string, Running>();
  const inFlight = new Set<Promise<void>>();
  let known = new Map<string, ScheduleRecord>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function tryFire(schedule: ScheduleRecord, slot: Date, reason: 'scheduled' | 'catch-up'): Promise<void> {
    if (stopped) return;
    if (!(await store.claimFire(schedule.id, slot, replicaId))) return;
    logger.info({ scheduleId: schedule.id, slot: slot.toISOString(), reason, replicaId }, 'schedule-fired');
    try {
      await options.fire(schedule, slot);
    } catch (error) {
      logger.error({ scheduleId: schedule.id, slot: slot.toISOString(), err: error }, 'schedule-fire-failed');
    }
  }

  function track(work: Promise<void>): Promise<void> {
    const tracked = work.catch((error: unknown) => logger.error({ err: error }, 'schedule-claim-failed')).finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    return tracked;
  }

  function startTask(schedule: ScheduleRecord): ScheduledTask {
    const task = createTask(
      schedule.cron,
      (context) => {
        // node-cron hands us the slot it matched (not when the timer woke), so every replica names the same slot.
        const slot = new Date(Math.floor(context.date.getTime() / 1000) * 1000);
        const current = known.get(schedule.id);
        if (current) track(tryFire(current, slot, 'scheduled'));
      },
      { timezone: schedule.timeZone, name: `tandem:${replicaId}:${schedule.id}`, suppressMissedWarning: true },
    );
    void task.start();
    return task;
  }

  async function reload(): Promise<void> {
    const schedules = await store.list({ enabledOnly: true });
    if (stopped) return;
    known = new Map(schedules.map((schedule) => [schedule.id, schedule]));
    for (const [id, entry] of running) {
      const schedule = known.get(id);
      if (schedule && entry.key === keyOf(schedule)) continue;
      await entry.task.destroy();
      running.delete(id);
    }
    for (const schedule of schedules) {
      if (running.has(schedule.id)) continue;
      try {
        running.set(schedule.id, { key: keyOf(schedule), task: startTask(schedule) });
      } catch (error) {
        logger.warn({ scheduleId: schedule.id, cron: schedule.cron, err: error }, 'schedule-not-started');
      }
    }
  }

  async function catchUp(): Promise<void> {
    const lastSlots = await store.lastFiredSlots();
    const at = now();
    const claims: Promise<void>[] = [];
    for (const schedule of known.values()) {
      const last = lastSlots.get(schedule.id);
      const notBefore = last && last > schedule.createdAt ? last : schedule.createdAt;
      let slot: Date | undefined;
      try {
        slot = previousFireTime(schedule.cron, schedule.timeZone, at, notBefore);
      } catch (error) {
        logger.warn({ scheduleId: schedule.id, cron: schedule.cron, err: error }, 'schedule-not-understood');
      }
      if (slot) claims.push(track(tryFire(schedule, slot, 'catch-up')));
    }
    await Promise.all(claims);
  }

  async function check(): Promise<void> {
    try {
      await reload();
      await catchUp();
      await store.pruneFires(new Date(now().getTime() - (options.fireRetentionMs ?? 7 * 86_400_000)));
    } catch (error) {
      logger.error({ err: error }, 'schedule-check-failed');
    }
  }

  return {
    async start() {
      stopped = false;
      await reload();
      await catchUp();
      timer = setInterval(() => void check(), options.checkIntervalMs ?? 60_000);
      timer.unref();
    },
    reload,
    catchUp,
    async stop() {
      stopped = true;
      clearInterval(timer);
      for (const entry of running.values()) await entry.task.destroy();
      running.clear();
      await Promise.all([...inFlight]);
    },
  };
}

function keyOf(schedule: ScheduleRecord): string {
  return `${schedule.cron}|${schedule.timeZone}`;
}
