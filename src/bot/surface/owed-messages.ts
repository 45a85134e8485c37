import type { Conversation } from '../../agent/ports/run-store.ts';
import { isPostOutcomeUnknown, slackErrorCode, type SlackClient } from './slack-client.ts';
import { asSlackBlocks, type MessageView } from '../views/limits.ts';

/** Message metadata naming a message the bot may have to find again (an owed message, a board); Slack keeps it with the message and returns it on request. */
export const OWED_EVENT_TYPE = 'tandem_owed';

export function owedMetadata(key: string): { event_type: string; event_payload: { key: string } } {
  return { event_type: OWED_EVENT_TYPE, event_payload: { key } };
}

/** What conversations.replies answers for a thread with nothing in it yet (or a channel the bot has not seen). */
const NOTHING_THERE = new Set(['thread_not_found', 'channel_not_found']);

/** The ts of the bot's message in the thread that carries this key, if an earlier delivery posted it. */
export async function findOwedInThread(client: SlackClient, conversation: Conversation, key: string): Promise<string | undefined> {
  let cursor: string | undefined;
  // Threads of a run are a few dozen messages; ten pages is far beyond any real one.
  for (let page = 0; page < 10; page += 1) {
    let replies: Awaited<ReturnType<SlackClient['conversations']['replies']>>;
    try {
      replies = await client.conversations.replies({
        channel: conversation.channel,
        ts: conversation.threadTs,
        include_all_metadata: true,
        limit: 200,
        ...(cursor ? { cursor } : {}),
      });
    } catch (error) {
      if (NOTHING_THERE.has(slackErrorCode(error) ?? '')) return undefined;
      throw error;
    }
    const found = replies.messages?.find(
      (m) => m.metadata?.event_type === OWED_EVENT_TYPE && (m.metadata.event_payload as { key?: unknown } | undefined)?.key === key,
    );
    if (found?.ts) return found.ts;
    cursor = replies.response_metadata?.next_cursor || undefined;
    if (!replies.has_more || !cursor) return undefined;
  }
  return undefined;
}

/** How long a post whose answer was lost is looked for in its thread before it counts as not posted, and how often. */
export interface PostSettle {
  settleMs: number;
  pollMs: number;
}

/** A slow Slack may still be storing a post its client gave up on (after 10 s) for a while after. */
const DEFAULT_POST_SETTLE: PostSettle = { settleMs: 10_000, pollMs: 1_000 };

/**
 * Posts `view` in the thread with `key` in its metadata. When Slack's answer is lost (a timeout, a reset:
 * the client does not send a post again, see slack-client.ts) the thread is watched for a while, since a
 * slow Slack may still be posting it; the copy found is the answer. None found, the error is thrown: the
 * caller's next try looks for the key first, or posts again knowing the first did not land.
 */
export async function postFindable(
  client: SlackClient,
  conversation: Conversation,
  key: string,
  view: MessageView,
  settle: PostSettle = DEFAULT_POST_SETTLE,
): Promise<string | undefined> {
  try {
    const posted = await client.chat.postMessage({
      channel: conversation.channel,
      thread_ts: conversation.threadTs,
      text: view.text,
      blocks: asSlackBlocks(view.blocks),
      metadata: owedMetadata(key),
    });
    return posted.ts;
  } catch (error) {
    if (!isPostOutcomeUnknown(error)) throw error;
    const found = await watchForOwed(client, conversation, key, settle);
    if (found) return found;
    throw error;
  }
}

/**
 * Looks for the key until it is found or `settleMs` is over; undefined when it was not found. A look that
 * fails counts as not found: the caller keeps the post's own "outcome unknown" error, so whoever tries
 * next still looks before posting.
 */
async function watchForOwed(client: SlackClient, conversation: Conversation, key: string, { settleMs, pollMs }: PostSettle): Promise<string | undefined> {
  const deadline = Date.now() + settleMs;
  for (;;) {
    const last = Date.now() >= deadline;
    const found = await findOwedInThread(client, conversation, key).catch(() => undefined);
    if (found || last) return found;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(pollMs, deadline - Date.now()))));
  }
}
