import type { App, BlockAction } from '@slack/bolt';
import type { BotDeps } from '../../bot-deps.ts';
import { describeError, TRY_AGAIN } from '../../surface/replies.ts';
import { CANCEL_RUN_ACTION } from '../../views/run/status-board.ts';
import { clickOrigin, privateReplier } from '../click-origin.ts';

/**
 * **Cancel run** on a status board (after Slack's confirm dialog). The agent asks the approval policy who
 * may cancel (the requester or an approver); anyone else is told privately who may, and nothing changes.
 * The board and the summary say the run was cancelled and by whom; a click on a board of another channel's
 * run, or of a run that already ended, changes nothing.
 */
export function registerCancelRun(app: App, deps: BotDeps): void {
  app.action(CANCEL_RUN_ACTION, async ({ ack, action, body, client }) => {
    await ack();
    const runId = (action as { value?: string }).value;
    if (!runId) return;
    const origin = clickOrigin(body as BlockAction);
    const reply = privateReplier(client, deps.logger, origin);
    try {
      const run = await deps.runs.getRun(runId);
      if (!run || run.conversation.channel !== origin.channel) return await reply('That board is not of a run I know in this channel; nothing was cancelled.');
      const result = await deps.agent.cancel({ runId, userId: origin.user });
      if (!result.ok) await reply(result.error.message);
    } catch (error) {
      deps.logger.warn({ err: describeError(error), runId }, 'could not cancel the run');
      await reply(`I could not cancel the run: ${describeError(error)}. ${TRY_AGAIN}`);
    }
  });
}
