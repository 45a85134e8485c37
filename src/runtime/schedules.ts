import type { ScheduleBounds, ScheduleServiceOptions } from '../schedules/schedule-service.ts';
import type { AgentApi } from '../agent/ports/agent-api.ts';
import type { SlackClient } from '../bot/index.ts';
import { escapeText } from '../integrations/slack/slack-text.ts';
import type { Logger } from '../observability/logger.ts';
import { createScheduler, createScheduleService, type Scheduler, type ScheduleService } from '../schedules/index.ts';
import { createSchedulesStore, type Db } from '../store/index.ts';

/** A clock ahead of the real one, checked often, fires a schedule's next slot now (node-cron keeps the real clock). */
export interface SchedulerClock {
  now: () => Date;
  checkEveryMs: number;
}

export interface Schedules {
  /** What Slack uses to add, list and remove schedules; each change reloads this replica's scheduler. */
  service: ScheduleService;
  scheduler: Scheduler;
}

/**
 * Fires stored schedules as runs. A scheduled run needs a thread like any other, so the bot opens one
 * in the schedule's channel and the run lives there; approval follows the usual policy. The scheduler
 * starts with start(); the service works before that (a change before start is picked up by it).
 */
export function createSchedules(deps: {
  db: Db;
  replicaId: string;
  agent: AgentApi;
  client: SlackClient;
  logger: Logger;
  secrets: readonly string[];
  /** Issue 32: the per-channel cap and shortest interval, and who may create a schedule. */
  bounds?: ScheduleBounds;
  mayCreate?: ScheduleServiceOptions['mayCreate'];
  /** Tests: the clock the scheduler catches up missed slots by, and how often it looks. */
  clock?: SchedulerClock;
}): Schedules {
  let started = false;
  const store = createSchedulesStore(deps.db);
  const scheduler = createScheduler({
    store,
    replicaId: deps.replicaId,
    logger: deps.logger,
    ...(deps.clock ? { clock: deps.clock.now, checkIntervalMs: deps.clock.checkEveryMs } : {}),
    async fire(schedule, slot) {
      const opened = await deps.client.chat.postMessage({
        channel: schedule.channel,
        text: `:alarm_clock: Scheduled by <@${schedule.createdBy}>: ${escapeText(schedule.task)}`,
      });
      if (!opened.ts) throw new Error(`could not open a thread in ${schedule.channel} for schedule ${schedule.id}`);
      const run = await deps.agent.startRun({
        task: schedule.task,
        requester: schedule.createdBy,
        conversation: { channel: schedule.channel, threadTs: opened.ts },
        origin: 'schedule',
      });
      await store.recordFireRun(schedule.id, slot, run.id);
      deps.logger.info({ scheduleId: schedule.id, slot: slot.toISOString(), runId: run.id }, 'schedule fired');
    },
  });
  const service = createScheduleService({
    store,
    secrets: deps.secrets,
    bounds: deps.bounds,
    mayCreate: deps.mayCreate,
    onChange: async () => (started ? scheduler.reload() : undefined),
  });
  const start = scheduler.start.bind(scheduler);
  return {
    service,
    scheduler: {
      ...scheduler,
      async start() {
        started = true;
        await start();
      },
    },
  };
}
