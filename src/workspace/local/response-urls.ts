import { z } from 'zod';
import type { WorkspaceModel } from '../slack-fake/workspace-model.ts';

const ResponseBody = z.object({
  response_type: z.enum(['in_channel', 'ephemeral']).optional(),
  text: z.string().optional(),
  blocks: z.array(z.unknown()).optional(),
  thread_ts: z.string().optional(),
});

/**
 * What the bot posts to a response_url (slash-command answers) shown where Slack shows it: `in_channel`
 * as a bot message in the channel, anything else as an ephemeral for the person who asked. The local
 * workspace has one channel and one person, so every response URL is theirs.
 */
export function applyResponse(model: WorkspaceModel, rawBody: string, where: { channel: string; user: string }): boolean {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    return false;
  }
  const body = ResponseBody.safeParse(json);
  if (!body.success || (!body.data.text && !body.data.blocks)) return false;
  const { text = '', blocks, thread_ts: threadTs } = body.data;
  const ts = model.nextTs();
  if (body.data.response_type === 'in_channel') {
    model.messages.push({ channel: where.channel, ts, threadTs, user: model.bot.userId, text, blocks, metadata: undefined, edits: 0 });
  } else {
    model.ephemerals.push({ channel: where.channel, user: where.user, threadTs, text, blocks, ts });
  }
  return true;
}
