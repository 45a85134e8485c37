import type { GroupDirectory } from '../../agent/ports/policy.ts';
import type { Logger } from '../../observability/logger.ts';
import { describeError } from './replies.ts';
import type { SlackClient } from './slack-client.ts';

/**
 * Who is in the user groups a policy names (decision 028): asked of Slack (`usergroups.users.list`)
 * and cached for a bounded time. When Slack cannot say, the last members it did say are used, or
 * nobody: fail closed, never "anyone".
 */
export function createSlackGroupDirectory(input: { client: SlackClient; logger: Logger; cacheMs?: number | undefined }): GroupDirectory {
  const cacheMs = input.cacheMs ?? 60_000;
  const cache = new Map<string, { members: Set<string>; at: number }>();

  async function members(group: string): Promise<Set<string>> {
    const cached = cache.get(group);
    if (cached && Date.now() - cached.at < cacheMs) return cached.members;
    try {
      const result = await input.client.usergroups.users.list({ usergroup: group });
      const fresh = { members: new Set(result.users ?? []), at: Date.now() };
      cache.set(group, fresh);
      return fresh.members;
    } catch (error) {
      input.logger.warn(
        { err: describeError(error), group },
        'could not list a user group; its members count as outside it (they cannot approve) until Slack answers',
      );
      return cached?.members ?? new Set();
    }
  }

  return {
    async groupsOf(userId, among) {
      const inGroups: string[] = [];
      for (const group of among) if ((await members(group)).has(userId)) inGroups.push(group);
      return inGroups;
    },
  };
}
