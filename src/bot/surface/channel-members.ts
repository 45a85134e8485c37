import type { Logger } from '../../observability/logger.ts';
import { describeError } from './replies.ts';
import type { SlackClient } from './slack-client.ts';

/** Whether a person is in a channel, for lists that must not show a channel's work to someone outside it. */
export interface ChannelMembers {
  isMember(channel: string, userId: string): Promise<boolean>;
}

/** Members fetched per channel; more pages than this is a channel too big to list waits from one by one. */
const MAX_PAGES = 10;

/**
 * Channel membership asked of Slack (`conversations.members`), cached per channel for `cacheMs` and for
 * at most `maxChannels` channels (the oldest entry goes first). When Slack cannot say, the person counts
 * as outside the channel: fail closed, a private channel's work is never shown to someone not in it.
 */
export function createChannelMembers(input: { client: SlackClient; logger: Logger; cacheMs?: number; maxChannels?: number }): ChannelMembers {
  const cacheMs = input.cacheMs ?? 60_000;
  const maxChannels = input.maxChannels ?? 200;
  const cache = new Map<string, { members: Set<string>; at: number }>();

  async function fetch(channel: string): Promise<Set<string>> {
    const members = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await input.client.conversations.members({ channel, limit: 1000, ...(cursor ? { cursor } : {}) });
      for (const member of result.members ?? []) members.add(member);
      cursor = result.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    return members;
  }

  async function membersOf(channel: string): Promise<Set<string>> {
    const cached = cache.get(channel);
    if (cached && Date.now() - cached.at < cacheMs) return cached.members;
    try {
      const members = await fetch(channel);
      cache.delete(channel);
      cache.set(channel, { members, at: Date.now() });
      while (cache.size > maxChannels) cache.delete(cache.keys().next().value!);
      return members;
    } catch (error) {
      input.logger.warn(
        { err: describeError(error), channel },
        'could not list the members of a channel; its waits are not listed for anyone until Slack answers',
      );
      return new Set();
    }
  }

  return {
    async isMember(channel, userId) {
      // A direct message with the bot: the agent lists it for its requester only.
      if (channel.startsWith('D')) return true;
      return (await membersOf(channel)).has(userId);
    },
  };
}
