import type { AgentApi } from '../agent/ports/agent-api.ts';
import type { SlackClient } from '../bot/index.ts';
import type { Logger } from '../observability/logger.ts';
import { createScheduler, type Scheduler } from '../schedules/index.ts';
import type { Db } from '../store/index.ts';

/**
 * Fires stored schedules as runs. A scheduled run needs a thread like any other, so the bot opens one
 * in the schedule's channel and the run lives there; approval follows the usual policy.
 */
export async function startSchedules(deps: { db: Db; replicaId: string; agent: AgentApi; client: SlackClient; logger: Logger }): Promise<Scheduler> {
  const scheduler = createScheduler({
    db: deps.db,
    replicaId: deps.replicaId,
    logger: deps.logger,
    async fire(schedule, slot) {
      const opened = await deps.client.chat.postMessage({
        channel: schedule.channel,
        text: `:alarm_clock: Scheduled by <@${schedule.createdBy}>: ${schedule.task}`,
      });
      if (!opened.ts) throw new Error(`could not open a thread in ${schedule.channel} for schedule ${schedule.id}`);
      await deps.agent.startRun({
        task: schedule.task,
        requester: schedule.createdBy,
        conversation: { channel: schedule.channel, threadTs: opened.ts },
        origin: 'schedule',
      });
      deps.logger.info({ scheduleId: schedule.id, slot: slot.toISOString() }, 'schedule fired');
    },
  });
  await scheduler.start();
  return scheduler;
}
