import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { EscalationAction } from '../../agent/ports/run-store.ts';
import type { BotDeps } from '../bot-deps.ts';
import { afterAck } from './after-ack.ts';
import { describeError, TRY_AGAIN } from '../surface/replies.ts';
import { clickOrigin, privateReplier } from './click-origin.ts';
import { decodeEscalationRef } from '../views/button-values.ts';
import { ESCALATION_ACTIONS } from '../views/escalation.ts';
import { mention } from '../views/text.ts';
import { replaceActions } from './replace-actions.ts';

/** Retry / Skip / Replan / Abort on an escalation; each resolves exactly the escalation it was posted for. */
export function registerEscalationActions(app: App, deps: BotDeps): void {
  for (const [action, actionId] of Object.entries(ESCALATION_ACTIONS) as [EscalationAction, string][]) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action: button, client }) => {
      await ack();
      await afterAck();
      const origin = clickOrigin(body);
      const tell = privateReplier(client, deps.logger, origin);
      const escalationId = decodeEscalationRef(button.value);
      if (!origin.channel) return;
      if (!escalationId) {
        await tell('That button is not from an escalation I recognise; nothing was done.');
        return;
      }
      try {
        const result = await deps.agent.resolveEscalation({ escalationId, userId: body.user.id, action });
        if (!result.ok) {
          await tell(result.error.message);
          return;
        }
        await replaceActions(client, deps.logger, body, `${mention(body.user.id)} chose *${action}*.`);
      } catch (error) {
        deps.logger.error({ err: describeError(error), escalationId }, 'resolving an escalation failed');
        await tell(`Your choice (${action}) was not recorded: ${describeError(error)}. ${TRY_AGAIN}`);
      }
    });
  }
}
