import type { App } from '@slack/bolt';
import type { BotDeps } from '../../bot-deps.ts';
import { messageAuthor, type MessageAuthorship } from '../../surface/bot-identity.ts';
import type { InboxContext } from '../../ingress/inbox-receiver.ts';
import { handleMessageToBot, taskText } from './mention.ts';

/**
 * A direct message to the bot is a request as a mention is: it plans in the DM's thread with the same
 * flow and the same approval rules. Edits, joins and the bot's own messages (any subtype, any bot) are
 * not requests; another app's message is one only when TANDEM_ALLOW_BOTS lists it.
 */
export function registerDirectMessage(app: App, deps: BotDeps): void {
  app.event('message', async ({ event, body, context, client }) => {
    if (event.channel_type !== 'im' || (event.subtype !== undefined && event.subtype !== 'bot_message')) return;
    const eventId = (body as { event_id?: string }).event_id;
    const author = messageAuthor(event as MessageAuthorship, context, deps.allowBots ?? []);
    if ('ignored' in author) return deps.logger.debug({ eventId, channel: event.channel, why: author.ignored }, 'direct message ignored');
    const requestId = (context as InboxContext).inboxKey;
    const text = taskText(('text' in event ? event.text : undefined) ?? '', context.botUserId);
    const threadTs = 'thread_ts' in event ? event.thread_ts : undefined;
    await handleMessageToBot(deps, client, { eventId, requestId, user: author.user, channel: event.channel, ts: event.ts, threadTs, text });
  });
}
