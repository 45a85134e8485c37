import type { Logger } from '../../observability/logger.ts';
import type { SlackClient } from './slack-client.ts';
import type { Text } from '../../agent/text/text.ts';
import { mrkdwn } from '../views/text.ts';

/**
 * Short answers to a person. They are the last line of "never silence": when even these fail there
 * is nobody left to tell, so the failure is logged and swallowed.
 */
export async function tellPrivately(
  client: SlackClient,
  logger: Logger,
  input: { channel: string; user: string; threadTs?: string; text: Text },
): Promise<void> {
  try {
    await client.chat.postEphemeral({
      channel: input.channel,
      user: input.user,
      text: mrkdwn(input.text),
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    });
  } catch (error) {
    logger.warn({ err: describeError(error), channel: input.channel }, 'could not send an ephemeral reply');
  }
}

export async function tellThread(client: SlackClient, logger: Logger, input: { channel: string; threadTs: string; text: Text }): Promise<void> {
  try {
    await client.chat.postMessage({ channel: input.channel, thread_ts: input.threadTs, text: mrkdwn(input.text) });
  } catch (error) {
    logger.warn({ err: describeError(error), channel: input.channel }, 'could not reply in the thread');
  }
}

export function describeError(error: unknown): string {
  if (error && typeof error === 'object' && 'data' in error) {
    const data = (error as { data?: { error?: string } }).data;
    if (data?.error) return data.error;
  }
  return error instanceof Error ? error.message : String(error);
}

export const TRY_AGAIN = "Please try again in a moment; if it keeps failing, an operator can look at the bot's logs.";
