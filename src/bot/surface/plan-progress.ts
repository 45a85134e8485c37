/**
 * A plan message's approval progress ("1 of 2 approvals") redrawn by a process that did not post it (after a restart,
 * or on another replica): the message still offering Approve for that run and version is found in the thread, and its
 * progress sections are swapped for the lines the agent read from the stored approvals. The rest of it stays as Slack
 * holds it.
 */
import type { Conversation } from '../../agent/ports/run-store.ts';
import type { Logger } from '../../observability/logger.ts';
import { decodePlanRef } from '../views/button-values.ts';
import { asSlackBlocks } from '../views/limits.ts';
import { withApprovalProgress } from '../views/plan/approval-progress.ts';
import { PLAN_APPROVE_ACTION } from '../views/plan/plan-message.ts';
import { describeError } from './replies.ts';
import type { SlackClient } from './slack-client.ts';

interface ThreadMessage {
  ts?: string;
  text?: string;
  blocks?: { type?: string; block_id?: string; elements?: { action_id?: string; value?: string }[] }[];
}

export async function progressInThread(
  client: SlackClient,
  logger: Logger,
  where: Conversation,
  plan: { runId: string; version: number },
  lines: readonly string[],
): Promise<void> {
  try {
    const replies = await client.conversations.replies({ channel: where.channel, ts: where.threadTs, limit: 200 });
    const message = ((replies.messages ?? []) as ThreadMessage[]).findLast((m) => offersApprove(m, plan));
    const blocks = message?.ts ? withApprovalProgress(message.blocks ?? [], lines) : undefined;
    if (!message?.ts || !blocks) return;
    await client.chat.update({ channel: where.channel, ts: message.ts, text: message.text ?? '', blocks: asSlackBlocks(blocks) });
  } catch (error) {
    logger.warn({ err: describeError(error), channel: where.channel }, 'could not show the approval progress on the plan');
  }
}

function offersApprove(message: ThreadMessage, plan: { runId: string; version: number }): boolean {
  return (message.blocks ?? []).some(
    (block) =>
      block.type === 'actions' &&
      (block.elements ?? []).some((element) => {
        if (element.action_id !== PLAN_APPROVE_ACTION) return false;
        const ref = decodePlanRef(element.value);
        return ref?.runId === plan.runId && ref.planVersion === plan.version;
      }),
  );
}
