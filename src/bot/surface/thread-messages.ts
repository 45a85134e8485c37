/**
 * A run's thread as Slack holds it, read back to find the messages that still offer a wait's buttons (copies a
 * reminder, a restart or another replica posted). One shape and one read for every surface file that looks.
 */
import type { SlackClient } from './slack-client.ts';

export interface ThreadButton {
  action_id?: string;
  value?: string;
}

export interface ThreadMessage {
  ts?: string;
  text?: string;
  blocks?: { type?: string; block_id?: string; elements?: ThreadButton[] }[];
}

/** The thread's messages, oldest first (its first 200: more than a run's thread holds). */
export async function readThread(client: SlackClient, where: { channel: string; threadTs: string }): Promise<ThreadMessage[]> {
  const replies = await client.conversations.replies({ channel: where.channel, ts: where.threadTs, limit: 200 });
  return (replies.messages ?? []) as ThreadMessage[];
}

/** The message's buttons (the elements of its actions blocks). */
export function buttonsOf(message: ThreadMessage): ThreadButton[] {
  return (message.blocks ?? []).flatMap((block) => (block.type === 'actions' ? (block.elements ?? []) : []));
}
