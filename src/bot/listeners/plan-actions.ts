import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { BotDeps } from '../bot-deps.ts';
import { afterAck } from './after-ack.ts';
import { describeError, tellPrivately, TRY_AGAIN } from '../replies.ts';
import { decodePlanRef } from '../views/button-values.ts';
import { PLAN_APPROVE_ACTION, PLAN_REJECT_ACTION } from '../views/plan-message.ts';
import { mention } from '../views/text.ts';
import { replaceActions } from './replace-actions.ts';

/** Approve / Reject: ack at once, then let the agent decide who may; refusals come back privately. */
export function registerPlanActions(app: App, deps: BotDeps): void {
  for (const [actionId, decision] of [
    [PLAN_APPROVE_ACTION, 'approve'],
    [PLAN_REJECT_ACTION, 'reject'],
  ] as const) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action, client }) => {
      await ack();
      await afterAck();
      const channel = body.channel?.id ?? body.container?.channel_id;
      const threadTs = body.message?.thread_ts ?? body.container?.thread_ts;
      const ref = decodePlanRef(action.value);
      if (!channel) return;
      if (!ref) {
        await tellPrivately(client, deps.logger, {
          channel,
          user: body.user.id,
          threadTs,
          text: 'That button is not from a plan I recognise; nothing was done.',
        });
        return;
      }
      try {
        const result = await deps.agent.decide({ ...ref, userId: body.user.id, decision });
        if (!result.ok) {
          await tellPrivately(client, deps.logger, { channel, user: body.user.id, threadTs, text: result.error });
          return;
        }
        deps.planDecided(ref.runId);
        const verb = decision === 'approve' ? ':white_check_mark: Approved' : ':no_good: Rejected';
        await replaceActions(client, deps.logger, body, `${verb} by ${mention(body.user.id)}`);
      } catch (error) {
        deps.logger.error({ err: describeError(error), runId: ref.runId }, 'plan decision failed');
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
