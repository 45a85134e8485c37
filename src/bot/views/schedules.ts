import type { ScheduleView } from '../../schedules/index.ts';
import { encodeScheduleRef } from './button-values.ts';
import type { Block, Button, MessageView } from './limits.ts';
import { context, escapeText, mention, section, truncate } from './text.ts';

export const SCHEDULE_REMOVE_ACTION = 'schedule-remove';

/** A list shows at most this many schedules (a message holds 50 blocks). */
const MAX_LISTED = 40;
const LIST_CHARS = 10_000;

function removeButton(id: string): Button {
  return { type: 'button', text: { type: 'plain_text', text: 'Remove' }, style: 'danger', action_id: SCHEDULE_REMOVE_ACTION, value: encodeScheduleRef(id) };
}

/**
 * A schedule in words: its task, when it fires and who made it. Its id is not shown: nothing a person
 * types takes it (the Remove button carries it), and it stays in the logs.
 */
function describe(schedule: ScheduleView, taskChars = 300): string {
  return `*${escapeText(truncate(schedule.task, taskChars))}*\n${when(schedule)} · by ${mention(schedule.createdBy)}`;
}

/** "Runs at `0 9 * * 1-5` in Europe/Berlin". */
function when(schedule: ScheduleView): string {
  return `Runs at \`${escapeText(schedule.cron)}\` in ${escapeText(schedule.timeZone)}`;
}

/** The answer to a new schedule: what will run, the cron it became, and when it fires next. */
export function scheduleCreatedMessage(schedule: ScheduleView, options: { fellBackToUtc: boolean }): MessageView {
  const next = schedule.nextFires.map((at) => `• ${escapeText(at)}`).join('\n');
  const text = `:alarm_clock: Scheduled: ${escapeText(truncate(schedule.task, 300))} (\`${escapeText(schedule.cron)}\` in ${escapeText(schedule.timeZone)})`;
  const blocks: Block[] = [
    section(
      `:alarm_clock: Scheduled for ${mention(schedule.createdBy)}: *${escapeText(truncate(schedule.task, 300))}*\n${when(schedule)}; each run posts a thread in this channel.`,
    ),
    section(`*Next runs:*\n${next || '_none_'}`),
  ];
  if (options.fellBackToUtc)
    blocks.push(
      context(
        ':warning: Slack did not tell me your time zone, so this schedule uses UTC. Set your time zone in your Slack profile, remove this schedule and add it again to use it.',
      ),
    );
  blocks.push(
    context("Each run asks for approval unless it comes from a runbook pre-approved for read-only steps. `/tandem schedules` lists this channel's schedules."),
  );
  blocks.push({ type: 'actions', block_id: `schedule-actions-${schedule.id}`.slice(0, 255), elements: [removeButton(schedule.id)] });
  return { text: truncate(text, 300), blocks };
}

/** `/tandem schedules`: the channel's schedules, each with its Remove button. */
export function scheduleListMessage(schedules: ScheduleView[]): MessageView {
  if (schedules.length === 0) {
    const text = 'No schedules in this channel. Add one with `/tandem schedule every weekday at 09:00 <task>`.';
    return { text, blocks: [section(text)] };
  }
  const blocks: Block[] = [section(`*Schedules in this channel (${schedules.length}):*`)];
  let shown = 0;
  let chars = 0;
  for (const schedule of schedules.slice(0, MAX_LISTED)) {
    const block: Block = {
      type: 'section',
      text: { type: 'mrkdwn', text: truncate(`${describe(schedule, 150)}\nNext: ${escapeText(schedule.nextFires[0] ?? 'never')}`, 3000) },
      accessory: removeButton(schedule.id),
    };
    chars += JSON.stringify(block).length;
    if (chars > LIST_CHARS) break; // a message's blocks must stay under ~12k characters
    blocks.push(block);
    shown += 1;
  }
  if (schedules.length > shown) blocks.push(context(`…and ${schedules.length - shown} more.`));
  return { text: `${schedules.length} schedule${schedules.length === 1 ? '' : 's'} in this channel`, blocks };
}

/** A schedule phrase the service did not understand: its explanation lists the forms that work. */
export function scheduleErrorText(error: string): string {
  return `:warning: I could not make a schedule of that: ${escapeText(error)}`;
}
