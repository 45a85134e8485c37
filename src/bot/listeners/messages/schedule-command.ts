import type { RespondFn } from '@slack/bolt';
import type { BotDeps } from '../../bot-deps.ts';
import { createScheduleFor, NO_SCHEDULES } from '../../schedule-requests.ts';
import type { SlackClient } from '../../surface/slack-client.ts';
import { asSlackBlocks } from '../../views/limits.ts';
import { scheduleListMessage } from '../../views/schedules.ts';

export const SCHEDULE_USAGE = 'Say when and what: `/tandem schedule every weekday at 09:00 triage open pull requests in acme/api`.';

/** `/tandem schedule <when> <task>` makes one; `/tandem schedules` lists the channel's. Both answer privately. */
export async function answerScheduleCommand(
  input: { verb: 'schedule' | 'schedules'; text: string; channel: string; user: string },
  deps: BotDeps,
  client: SlackClient,
  respond: RespondFn,
): Promise<void> {
  if (!deps.schedules) {
    await respond({ response_type: 'ephemeral', text: NO_SCHEDULES });
    return;
  }
  if (input.verb === 'schedules') {
    const view = scheduleListMessage(await deps.schedules.list({ channel: input.channel }));
    await respond({ response_type: 'ephemeral', text: view.text, blocks: asSlackBlocks(view.blocks) });
    return;
  }
  if (!input.text) {
    await respond({ response_type: 'ephemeral', text: SCHEDULE_USAGE });
    return;
  }
  const made = await createScheduleFor(deps, client, { text: input.text, channel: input.channel, user: input.user });
  if (!made.ok) {
    await respond({ response_type: 'ephemeral', text: made.error });
    return;
  }
  await respond({ response_type: 'ephemeral', text: made.value.text, blocks: asSlackBlocks(made.value.blocks) });
}
