import type { BlockAction } from '@slack/bolt';
import type { Logger } from '../../observability/logger.ts';
import { describeError } from '../replies.ts';
import { clickOrigin } from './click-origin.ts';
import type { SlackClient } from '../slack-client.ts';
import { asSlackBlocks } from '../views/limits.ts';
import { context } from '../views/text.ts';

/**
 * After a decision, the clicked message loses its buttons and says who decided, so nobody acts on a
 * stale message. Best effort: the decision is already stored.
 */
export async function replaceActions(client: SlackClient, logger: Logger, body: BlockAction, line: string): Promise<void> {
  const { channel, messageTs: ts } = clickOrigin(body);
  const blocks = body.message?.blocks as { type?: string }[] | undefined;
  if (!channel || !ts || !blocks) return;
  const kept = blocks.filter((block) => block.type !== 'actions');
  try {
    await client.chat.update({ channel, ts, text: (body.message?.text as string | undefined) ?? line, blocks: asSlackBlocks([...kept, context(line)]) });
  } catch (error) {
    logger.warn({ err: describeError(error), channel }, 'could not mark the message as decided');
  }
}
