/**
 * Every message in a thread that still offers one wait's buttons (a Confirm posted again by its reminder,
 * perhaps by another replica): once that wait is decided or over, each copy loses its buttons and says
 * so, not only the one clicked. Read from the thread, so copies this process never posted are found too,
 * and a copy already rewritten (its buttons gone) is left as it is.
 */
import type { RunSummary } from '../../agent/ports/surface.ts';
import type { Logger } from '../../observability/logger.ts';
import { asSlackBlocks } from '../views/limits.ts';
import { decidedBlocks } from '../views/plan/decided-blocks.ts';
import { ADDRESSEE_BLOCK } from '../views/run/reassign.ts';
import { TARGET_ABORT_ACTION, TARGET_CONFIRM_ACTION } from '../views/run/target-confirmation.ts';
import { context } from '../views/text.ts';
import { describeError } from './replies.ts';
import type { SlackClient } from './slack-client.ts';

interface ThreadMessage {
  ts?: string;
  text?: string;
  blocks?: { type?: string; block_id?: string; elements?: { action_id?: string; value?: string }[] }[];
}

/** A button of the wait: its action and, when given, its value (the wait it is bound to). */
export interface WaitButton {
  actionIds: readonly string[];
  value?: string;
}

export async function retireLiveCopies(
  client: SlackClient,
  logger: Logger,
  where: { channel: string; threadTs: string; except?: string },
  button: WaitButton,
  line: string,
): Promise<void> {
  try {
    const replies = await client.conversations.replies({ channel: where.channel, ts: where.threadTs, limit: 200 });
    for (const message of (replies.messages ?? []) as ThreadMessage[]) {
      if (!message.ts || message.ts === where.except || !offers(message, button)) continue;
      const blocks = decidedBlocks(message.blocks ?? []).filter((block) => block.block_id !== ADDRESSEE_BLOCK);
      await client.chat.update({ channel: where.channel, ts: message.ts, text: message.text ?? line, blocks: asSlackBlocks([...blocks, context(line)]) });
    }
  } catch (error) {
    logger.warn({ err: describeError(error), channel: where.channel }, 'could not take the buttons off every copy of a wait');
  }
}

/**
 * The run ended: a Confirm still offering its buttons (it expired, or the run ended another way meanwhile) loses them
 * on every copy. Looked for when the summary says a Confirm was asked (the store's word, whoever posted it), or, for a
 * summary owed before it said so, when this process posted one (`postedHere`).
 */
export async function retireConfirms(
  client: SlackClient,
  logger: Logger,
  summary: Pick<RunSummary, 'run' | 'outcome' | 'confirmsAsked'>,
  postedHere: boolean,
): Promise<void> {
  if (!postedHere && summary.confirmsAsked !== true) return;
  const button = { actionIds: [TARGET_CONFIRM_ACTION, TARGET_ABORT_ACTION] };
  await retireLiveCopies(client, logger, summary.run.conversation, button, `Run ${summary.outcome}; this no longer waits for a Confirm.`);
}

function offers(message: ThreadMessage, button: WaitButton): boolean {
  return (message.blocks ?? []).some(
    (block) =>
      block.type === 'actions' &&
      (block.elements ?? []).some(
        (element) => button.actionIds.includes(element.action_id ?? '') && (button.value === undefined || element.value === button.value),
      ),
  );
}
