import type { BlockAction } from '@slack/bolt';
import type { Text } from '../../agent/text/text.ts';
import type { SlackClient } from '../surface/slack-client.ts';
import { tellPrivately } from '../surface/replies.ts';
import type { Logger } from '../../observability/logger.ts';

/**
 * Where a button was clicked and by whom. A click in a channel message carries `channel`; one in a
 * message Slack only describes through its container (an ephemeral, an older payload) carries
 * `container.channel_id`: every listener reads both the same way.
 */
export interface ClickOrigin {
  user: string;
  channel: string | undefined;
  threadTs: string | undefined;
  messageTs: string | undefined;
}

export function clickOrigin(body: BlockAction): ClickOrigin {
  return {
    user: body.user.id,
    channel: body.channel?.id ?? body.container?.channel_id,
    threadTs: body.message?.thread_ts ?? body.container?.thread_ts,
    messageTs: body.message?.ts ?? body.container?.message_ts,
  };
}

/** A reply only the clicker sees, in the click's thread; nothing to say it to when Slack sent no channel. */
export function privateReplier(client: SlackClient, logger: Logger, origin: ClickOrigin): (text: Text) => Promise<void> {
  const { channel, user, threadTs } = origin;
  return (text) => (channel ? tellPrivately(client, logger, { channel, user, threadTs, text }) : Promise.resolve());
}
