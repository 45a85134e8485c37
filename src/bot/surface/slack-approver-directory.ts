import type { ApproverDirectory } from '../../agent/ports/approvers.ts';
import type { Logger } from '../../observability/logger.ts';
import { describeError } from './replies.ts';
import type { SlackClient } from './slack-client.ts';

/**
 * TANDEM_APPROVERS: user ids approve directly, user groups through their members (asked of Slack and
 * cached briefly). When Slack cannot say who is in a group, the last members it did say are used, or
 * nobody: fail closed.
 */
export function createSlackApproverDirectory(input: {
  client: SlackClient;
  approvers: readonly string[];
  logger: Logger;
  cacheMs?: number;
}): ApproverDirectory {
  const cacheMs = input.cacheMs ?? 60_000;
  const users = new Set(input.approvers.filter((id) => !id.startsWith('S')));
  const groups = input.approvers.filter((id) => id.startsWith('S'));
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
      input.logger.warn({ err: describeError(error), group }, 'could not list a user group; its members cannot approve until Slack answers');
      return cached?.members ?? new Set();
    }
  }

  return {
    async isApprover(userId) {
      if (input.approvers.length === 0) return true;
      if (users.has(userId)) return true;
      for (const group of groups) {
        if ((await members(group)).has(userId)) return true;
      }
      return false;
    },
  };
}
