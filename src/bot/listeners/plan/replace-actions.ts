import type { BlockAction } from '@slack/bolt';
import type { Logger } from '../../../observability/logger.ts';
import { describeError } from '../../surface/replies.ts';
import { clickOrigin } from '../click-origin.ts';
import type { SlackClient } from '../../surface/slack-client.ts';
import { asSlackBlocks } from '../../views/limits.ts';
import { context } from '../../views/text.ts';
import { ADDRESSEE_BLOCK } from '../../views/run/reassign.ts';
import { decidedBlocks } from '../../views/plan/decided-blocks.ts';

type Block = { type?: string; block_id?: string; elements?: unknown[] };

/**
 * After a decision, the clicked message loses its buttons (a plan keeps View full plan) and says who
 * decided, so nobody acts on a stale message. Best effort: the decision is already stored.
 */
export async function replaceActions(client: SlackClient, logger: Logger, body: BlockAction, line: string): Promise<void> {
  const { channel, messageTs: ts, threadTs } = clickOrigin(body);
  // An ephemeral message cannot be edited through chat.update (nor read back); its listener answers through response_url.
  if (!channel || !ts || body.container?.is_ephemeral) return;
  try {
    const blocks = (body.message?.blocks as Block[] | undefined) ?? (await blocksFromSlack(client, { channel, ts, threadTs }));
    if (!blocks) return;
    // "Waiting on @B" is over once decided: the line saying who decided takes its place.
    const kept = decidedBlocks(blocks).filter((block) => block.block_id !== ADDRESSEE_BLOCK);
    await client.chat.update({ channel, ts, text: (body.message?.text as string | undefined) ?? line, blocks: asSlackBlocks([...kept, context(line)]) });
  } catch (error) {
    logger.warn({ err: describeError(error), channel }, 'could not mark the message as decided');
  }
}

/** The clicked message's blocks as Slack holds them: a click handled again after a crash was stored without them (see storableBody). */
async function blocksFromSlack(client: SlackClient, at: { channel: string; ts: string; threadTs: string | undefined }): Promise<Block[] | undefined> {
  const replies = await client.conversations.replies({
    channel: at.channel,
    ts: at.threadTs ?? at.ts,
    oldest: at.ts,
    latest: at.ts,
    inclusive: true,
    limit: 2,
  });
  return replies.messages?.find((message) => message.ts === at.ts)?.blocks as Block[] | undefined;
}
