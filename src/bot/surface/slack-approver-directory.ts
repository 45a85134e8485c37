import type { ApproverDirectory } from '../../agent/ports/approvers.ts';
import type { Logger } from '../../observability/logger.ts';
import { createSlackGroupDirectory } from './slack-group-directory.ts';
import type { SlackClient } from './slack-client.ts';

/**
 * TANDEM_APPROVERS: user ids approve directly, user groups through their members (the group directory:
 * asked of Slack, cached briefly, failing closed when Slack cannot say).
 */
export function createSlackApproverDirectory(input: {
  client: SlackClient;
  approvers: readonly string[];
  logger: Logger;
  cacheMs?: number;
}): ApproverDirectory {
  const users = new Set(input.approvers.filter((id) => !id.startsWith('S')));
  const groups = input.approvers.filter((id) => id.startsWith('S'));
  const directory = createSlackGroupDirectory({ client: input.client, logger: input.logger, cacheMs: input.cacheMs });

  return {
    listed: () => input.approvers,
    async isApprover(userId) {
      if (input.approvers.length === 0) return true;
      if (users.has(userId)) return true;
      return (await directory.groupsOf(userId, groups)).length > 0;
    },
  };
}
