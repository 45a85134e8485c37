import type { App } from '@slack/bolt';
import type { BotDeps } from '../bot-deps.ts';
import type { InboxContext } from '../inbox-receiver.ts';
import { handleMessageToBot, taskText } from './mention.ts';

/**
 * A direct message to the bot is a request as a mention is: it plans in the DM's thread with the same
 * flow and the same approval rules. Edits, joins and the bot's own messages (any subtype, any bot) are
 * not requests.
 */
export function registerDirectMessage(app: App, deps: BotDeps): void {
  app.event('message', async ({ event, body, context, client }) => {
    if (event.channel_type !== 'im' || event.subtype !== undefined) return;
    if (event.bot_id || !event.user || event.user === context.botUserId) return;
    const eventId = (body as { event_id?: string }).event_id;
    const requestId = (context as InboxContext).inboxKey;
    const text = taskText(event.text ?? '', context.botUserId);
    await handleMessageToBot(deps, client, { eventId, requestId, user: event.user, channel: event.channel, ts: event.ts, threadTs: event.thread_ts, text });
  });
}
