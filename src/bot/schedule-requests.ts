import type { Result } from '../agent/model/errors.ts';
import type { Logger } from '../observability/logger.ts';
import type { BotDeps } from './bot-deps.ts';
import { describeError } from './surface/replies.ts';
import type { SlackClient } from './surface/slack-client.ts';
import { userTimeZone } from './surface/user-time-zone.ts';
import { asSlackBlocks, type MessageView } from './views/limits.ts';
import { scheduleCreatedMessage, scheduleErrorText } from './views/schedules.ts';
import { section } from './views/text.ts';

export const NO_SCHEDULES = 'Schedules are not available on this Tandem (no schedule store is wired in).';

/** A person asked for a schedule: made in their time zone, answered with its cron and next fire times. */
export async function createScheduleFor(
  deps: BotDeps,
  client: SlackClient,
  input: { text: string; channel: string; user: string },
): Promise<Result<MessageView, string>> {
  if (!deps.schedules) return { ok: false, error: NO_SCHEDULES };
  const zone = await userTimeZone(client, deps.logger, input.user);
  const created = await deps.schedules.create({ text: input.text, channel: input.channel, createdBy: input.user, timeZone: zone.timeZone });
  if (!created.ok) return { ok: false, error: scheduleErrorText(created.error) };
  deps.logger.info({ scheduleId: created.value.id, cron: created.value.cron, timeZone: created.value.timeZone, channel: input.channel }, 'schedule created');
  return { ok: true, value: scheduleCreatedMessage(created.value, { fellBackToUtc: zone.fellBack }) };
}

/** A view of mrkdwn already escaped (e.g. scheduleErrorText). */
export function errorView(text: string): MessageView {
  return { text, blocks: [section(text)] };
}

/** Posts a built view in a thread; best effort like the other replies. */
export async function postViewInThread(client: SlackClient, logger: Logger, input: { channel: string; threadTs: string; view: MessageView }): Promise<void> {
  try {
    await client.chat.postMessage({ channel: input.channel, thread_ts: input.threadTs, text: input.view.text, blocks: asSlackBlocks(input.view.blocks) });
  } catch (error) {
    logger.warn({ err: describeError(error), channel: input.channel }, 'could not reply in the thread');
  }
}
