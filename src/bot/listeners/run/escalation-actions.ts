import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { BotDeps } from '../../bot-deps.ts';
import { afterAck } from '../after-ack.ts';
import { describeError, TRY_AGAIN } from '../../surface/replies.ts';
import { clickOrigin, privateReplier } from '../click-origin.ts';
import { decodeEscalationButton } from '../../views/button-values.ts';
import { ESCALATION_ACTIONS, ESCALATION_HEADLINE_BLOCK, resolvedEscalationMessage, type EscalationButtonAnswer } from '../../views/run/escalation.ts';
import { asSlackBlocks, type MessageView } from '../../views/limits.ts';
import { ANSWER_WORDS } from '../../../agent/execution/escalation-offer.ts';
import type { SlackClient } from '../../surface/slack-client.ts';
import type { Logger } from '../../../observability/logger.ts';
import { retireLiveCopies } from '../../surface/live-copies.ts';
import { PLAN_APPROVE_ACTION, PLAN_MODIFY_ACTION, PLAN_REJECT_ACTION } from '../../views/plan/plan-message.ts';
import { mention } from '../../views/text.ts';

/** An escalation's answers (Retry, Skip, Replan, Abort, Approve anyway, Reject, Try again); each resolves exactly the escalation it was posted for. */
export function registerEscalationActions(app: App, deps: BotDeps): void {
  for (const [answer, actionId] of Object.entries(ESCALATION_ACTIONS) as [EscalationButtonAnswer, string][]) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action: button, client }) => {
      await ack();
      await afterAck();
      const origin = clickOrigin(body);
      const tell = privateReplier(client, deps.logger, origin);
      const named = decodeEscalationButton(button.value);
      const escalationId = named?.escalationId;
      if (!origin.channel) return;
      if (!escalationId) {
        await tell('That button is not from an escalation I recognise; nothing was done.');
        return;
      }
      try {
        const result = await deps.agent.resolveEscalation({ escalationId, userId: body.user.id, action: answer, digest: named?.digest });
        if (!result.ok) {
          await tell(result.error.message);
          return;
        }
        const answered = answeredView(body, answer);
        await collapse(client, deps.logger, body, answered);
        // Its reminder may have posted it again: every other copy becomes the same line (found by the escalation's value).
        // Approved from here, the plan above is decided too: its Approve, Modify and Reject go (View full plan stays).
        const approvedPlan = {
          button: { actionIds: [PLAN_APPROVE_ACTION, PLAN_MODIFY_ACTION, PLAN_REJECT_ACTION] },
          after: `:white_check_mark: Approved by ${mention(body.user.id)} (approve anyway, from the escalation below)`,
        };
        if (origin.threadTs)
          await retireLiveCopies(client, deps.logger, { channel: origin.channel, threadTs: origin.threadTs, except: origin.messageTs }, [
            { button: { actionIds: Object.values(ESCALATION_ACTIONS), value: button.value }, after: answered },
            ...(answer === 'approve' ? [approvedPlan] : []),
          ]);
      } catch (error) {
        deps.logger.error({ err: describeError(error), escalationId }, 'resolving an escalation failed');
        await tell(`Your choice (${ANSWER_WORDS[answer].label}) was not recorded. ${TRY_AGAIN}`);
      }
    });
  }
}

/** The answered escalation as one line: its headline and who chose what. */
function answeredView(body: BlockAction, answer: EscalationButtonAnswer): MessageView {
  const blocks = (body.message?.blocks ?? []) as { block_id?: string; text?: { text?: string } }[];
  const headline = blocks.find((block) => block.block_id === ESCALATION_HEADLINE_BLOCK)?.text?.text;
  return resolvedEscalationMessage({ headline, answer, userId: body.user.id });
}

/** The clicked message becomes that line. Best effort: the answer is already stored. */
async function collapse(client: SlackClient, logger: Logger, body: BlockAction, view: MessageView): Promise<void> {
  const { channel, messageTs: ts } = clickOrigin(body);
  if (!channel || !ts || body.container?.is_ephemeral) return;
  try {
    await client.chat.update({ channel, ts, text: view.text, blocks: asSlackBlocks(view.blocks) });
  } catch (error) {
    logger.warn({ err: describeError(error), channel }, 'could not mark the escalation as answered');
  }
}
