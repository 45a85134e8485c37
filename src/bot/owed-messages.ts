import type { Conversation } from '../agent/ports/run-store.ts';
import type { SlackClient } from './slack-client.ts';

/** Message metadata naming an owed message; Slack keeps it with the message and returns it on request. */
export const OWED_EVENT_TYPE = 'tandem_owed';

export function owedMetadata(key: string): { event_type: string; event_payload: { key: string } } {
  return { event_type: OWED_EVENT_TYPE, event_payload: { key } };
}

/** The ts of the bot's message in the thread that carries this key, if an earlier delivery posted it. */
export async function findOwedInThread(client: SlackClient, conversation: Conversation, key: string): Promise<string | undefined> {
  let cursor: string | undefined;
  // Threads of a run are a few dozen messages; ten pages is far beyond any real one.
  for (let page = 0; page < 10; page += 1) {
    const replies = await client.conversations.replies({
      channel: conversation.channel,
      ts: conversation.threadTs,
      include_all_metadata: true,
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
    const found = replies.messages?.find(
      (m) => m.metadata?.event_type === OWED_EVENT_TYPE && (m.metadata.event_payload as { key?: unknown } | undefined)?.key === key,
    );
    if (found?.ts) return found.ts;
    cursor = replies.response_metadata?.next_cursor || undefined;
    if (!replies.has_more || !cursor) return undefined;
  }
  return undefined;
}
