import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { BotDeps } from '../bot-deps.ts';
import { afterAck } from './after-ack.ts';
import { describeError, tellPrivately, TRY_AGAIN } from '../replies.ts';
import { decodeStepRef } from '../views/button-values.ts';
import { TARGET_ABORT_ACTION, TARGET_CONFIRM_ACTION } from '../views/target-confirmation.ts';
import { mention } from '../views/text.ts';
import { replaceActions } from './replace-actions.ts';

/** Confirm / Abort of a late-bound target: the agent decides who may; refusals come back privately. */
export function registerConfirmActions(app: App, deps: BotDeps): void {
  for (const [actionId, decision] of [
    [TARGET_CONFIRM_ACTION, 'confirm'],
    [TARGET_ABORT_ACTION, 'abort'],
  ] as const) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action, client }) => {
      await ack();
      await afterAck();
      const channel = body.channel?.id ?? body.container?.channel_id;
      const threadTs = body.message?.thread_ts ?? body.container?.thread_ts;
      const ref = decodeStepRef(action.value);
      if (!channel) return;
      if (!ref) {
        await tellPrivately(client, deps.logger, {
          channel,
          user: body.user.id,
          threadTs,
          text: 'That button is not from a Confirm I recognise; nothing was done.',
        });
        return;
      }
      try {
        const result = await deps.agent.confirmTarget({ ...ref, userId: body.user.id, decision });
        if (!result.ok) {
          await tellPrivately(client, deps.logger, { channel, user: body.user.id, threadTs, text: result.error });
          return;
        }
        const line =
          decision === 'confirm' ? `:white_check_mark: Confirmed by ${mention(body.user.id)}` : `:octagonal_sign: Aborted by ${mention(body.user.id)}`;
        await replaceActions(client, deps.logger, body, line);
      } catch (error) {
        deps.logger.error({ err: describeError(error), runId: ref.runId }, 'confirm decision failed');
        await tellPrivately(client, deps.logger, {
          channel,
          user: body.user.id,
          threadTs,
          text: `Your ${decision} was not recorded: ${describeError(error)}. ${TRY_AGAIN}`,
        });
      }
    });
  }
}
