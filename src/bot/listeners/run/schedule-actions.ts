import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { checkScheduleRemover } from '../../../agent/decisions/approval-policy.ts';
import type { BotDeps } from '../../bot-deps.ts';
import { describeError, TRY_AGAIN } from '../../surface/replies.ts';
import { clickOrigin, privateReplier } from '../click-origin.ts';
import { decodeScheduleRef } from '../../views/button-values.ts';
import { asSlackBlocks } from '../../views/limits.ts';
import { SCHEDULE_REMOVE_ACTION, scheduleListMessage } from '../../views/schedules.ts';
import { context, escapeText, mention } from '../../views/text.ts';
import { afterAck } from '../after-ack.ts';
import { replaceActions } from '../plan/replace-actions.ts';

/**
 * Remove on a schedule: its creator or an approver may; anyone else is told why, privately. A reply in a
 * thread loses its button; a private list is redrawn without the schedule.
 */
export function registerScheduleActions(app: App, deps: BotDeps): void {
  app.action<BlockAction<ButtonAction>>(SCHEDULE_REMOVE_ACTION, async ({ ack, body, action, client, respond }) => {
    await ack();
    await afterAck();
    const user = body.user.id;
    const tell = privateReplier(client, deps.logger, clickOrigin(body));
    const scheduleId = decodeScheduleRef(action.value);
    if (!scheduleId || !deps.schedules) {
      await tell('That button is not from a schedule I recognise; nothing was done.');
      return;
    }
    try {
      const schedule = await deps.schedules.get(scheduleId);
      if (!schedule) {
        await tell(`Schedule \`${scheduleId}\` was already removed.`);
        return;
      }
      const may = await checkScheduleRemover({
        userId: user,
        policy: { gate: deps.policy, schedule },
      });
      if (!may.ok) {
        await tell(may.error.message);
        return;
      }
      await deps.schedules.remove(scheduleId);
      deps.logger.info({ scheduleId, by: user }, 'schedule removed');
      const line = `:wastebasket: Schedule \`${escapeText(scheduleId)}\` (${escapeText(schedule.task)}) removed by ${mention(user)}.`;
      const blocks = body.message?.blocks as unknown[] | undefined;
      if (blocks && !body.container?.is_ephemeral) {
        await replaceActions(client, deps.logger, body, line);
        return;
      }
      const remaining = scheduleListMessage(await deps.schedules.list({ channel: schedule.channel }));
      await respond({
        response_type: 'ephemeral',
        replace_original: true,
        text: `Removed. ${remaining.text}`,
        blocks: asSlackBlocks([context(line), ...remaining.blocks]),
      });
    } catch (error) {
      deps.logger.error({ err: describeError(error), scheduleId }, 'removing a schedule failed');
      await tell(`The schedule was not removed: ${describeError(error)}. ${TRY_AGAIN}`);
    }
  });
}
