/**
 * A plan message's approval progress ("1 of 2 approvals") redrawn by a process that did not post it (after a restart,
 * or on another replica): the message still offering Approve for that run and version is found in the thread, and its
 * progress sections are swapped for the lines the agent read from the stored approvals. The rest of it stays as Slack
 * holds it.
 */
import type { Conversation } from '../../agent/ports/run-store.ts';
import type { Logger } from '../../observability/logger.ts';
import { asSlackBlocks } from '../views/limits.ts';
import { withApprovalProgress } from '../views/plan/approval-progress.ts';
import { describeError } from './replies.ts';
import type { SlackClient } from './slack-client.ts';
import { buttonsOf, readThread } from './thread-messages.ts';
import { answersWait } from './wait-messages.ts';

export async function progressInThread(
  client: SlackClient,
  logger: Logger,
  where: Conversation,
  plan: { runId: string; version: number },
  lines: readonly string[],
): Promise<void> {
  try {
    const approval = { kind: 'approval' as const, runId: plan.runId, planVersion: plan.version };
    const message = (await readThread(client, where)).findLast((m) => buttonsOf(m).some((button) => answersWait(approval, button)));
    const blocks = message?.ts ? withApprovalProgress(message.blocks ?? [], lines) : undefined;
    if (!message?.ts || !blocks) return;
    await client.chat.update({ channel: where.channel, ts: message.ts, text: message.text ?? '', blocks: asSlackBlocks(blocks) });
  } catch (error) {
    logger.warn({ err: describeError(error), channel: where.channel }, 'could not show the approval progress on the plan');
  }
}
