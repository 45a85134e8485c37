import { FINAL_RUN_STATUSES, type RunRecord } from '../../agent/ports/run-store.ts';
import type { Block, Button, HomeView } from './limits.ts';
import { context, escapeText, header, mention, section, truncate } from './text.ts';

export const RUN_STATUS_EMOJI: Record<RunRecord['status'], string> = {
  planning: ':thought_balloon:',
  'awaiting-approval': ':raised_hand:',
  'awaiting-answer': ':question:',
  executing: ':arrows_counterclockwise:',
  paused: ':double_vertical_bar:',
  'rolling-back': ':leftwards_arrow_with_hook:',
  succeeded: ':white_check_mark:',
  failed: ':x:',
  aborted: ':octagonal_sign:',
  cancelled: ':no_entry_sign:',
  rejected: ':no_good:',
  expired: ':hourglass:',
};

/** A run's status in words. */
const STATUS_WORDS: Record<RunRecord['status'], string> = {
  planning: 'planning',
  'awaiting-approval': 'waiting for approval',
  'awaiting-answer': 'waiting for an answer',
  executing: 'running',
  paused: 'waiting for a person',
  'rolling-back': 'rolling back',
  succeeded: 'succeeded',
  failed: 'failed',
  aborted: 'aborted',
  cancelled: 'cancelled',
  rejected: 'rejected',
  expired: 'expired',
};

/** Link buttons only open a page, but Slack still sends their click: one listener acknowledges it. */
export const OPEN_THREAD_ACTION_PREFIX = 'open-thread';

/** A time as Slack's date token: each reader sees it in their own time zone; the fallback is UTC. */
export function slackDate(at: Date): string {
  const epoch = Math.floor(at.getTime() / 1000);
  return `<!date^${epoch}^{date_short_pretty} at {time}|${at.toISOString().slice(0, 16).replace('T', ' ')} UTC>`;
}

/** The run's thread as a link Slack opens in the app (a permalink when the surface has one). */
export function threadUrl(run: RunRecord, permalink?: string): string {
  return permalink ?? `https://slack.com/archives/${run.conversation.channel}/p${run.conversation.threadTs.replace('.', '')}`;
}

function openThreadButton(run: RunRecord, index: number, permalink?: string): Button {
  return {
    type: 'button',
    text: { type: 'plain_text', text: 'Open thread' },
    action_id: `${OPEN_THREAD_ACTION_PREFIX}-${index}`,
    url: threadUrl(run, permalink),
  };
}

/**
 * One line per run; `withId` adds the run's id (`/tandem status` and `/tandem runs` show it, since
 * `/tandem cancel <runId>` takes it); `permalink` leads to the run's thread.
 */
export function runLine(run: RunRecord, options: { permalink?: string; withId?: boolean } = {}): string {
  const task = escapeText(truncate(run.task.replace(/\s+/g, ' '), 140));
  const where = options.permalink ? `<${options.permalink}|thread>` : `<#${run.conversation.channel}>`;
  const id = options.withId ? ` · \`${escapeText(run.id)}\`` : '';
  const { status } = run;
  return `${RUN_STATUS_EMOJI[status]} *${STATUS_WORDS[status]}* · ${task} · ${where}${id} · ${slackDate(run.createdAt)}`;
}

/** A run as a section with its Open thread button. */
export function runSection(run: RunRecord, index: number, options: { permalink?: string; withId?: boolean; note?: string } = {}): Block {
  const line = runLine(run, options.withId ? { withId: true } : {});
  const text = truncate(options.note ? `${line}\n${options.note}` : line, 3000);
  return { type: 'section', text: { type: 'mrkdwn', text }, accessory: openThreadButton(run, index, options.permalink) };
}

/** `/tandem status`: the runs in progress in this channel, one line each with an Open thread button. */
export function statusBlocks(runs: readonly RunRecord[], permalinks: ReadonlyMap<string, string> = new Map()): Block[] {
  if (runs.length === 0) return [section('No runs in progress in this channel.')];
  return [
    section('*Runs in progress in this channel:*'),
    ...runs.slice(0, 40).map((run, index) => runSection(run, index, { withId: true, ...optionalLink(permalinks.get(run.id)) })),
  ];
}

function optionalLink(permalink: string | undefined): { permalink?: string } {
  return permalink ? { permalink } : {};
}

/** What a run waiting for a person needs from the viewer. */
export interface NeedsYou {
  run: RunRecord;
  /** "Approve or reject the plan", "Answer a question", "Decide how the run goes on". */
  what: string;
  /** Who handed this wait to the viewer (Reassign). */
  handedBy?: string;
  /** The wait's own message; absent: the run's thread. */
  permalink?: string;
}

export interface HomeSchedule {
  task: string;
  channel: string;
  nextFires: readonly string[];
}

export interface AppHomeInput {
  userId: string;
  /** Waits the viewer may answer, in channels they are in (the approval policy decided). */
  needsYou?: readonly NeedsYou[];
  /** The viewer's runs, newest first: those in progress show as running, the rest as recent. */
  runs: readonly RunRecord[];
  schedules?: readonly HomeSchedule[];
  permalinks?: ReadonlyMap<string, string>;
}

const FINISHED: ReadonlySet<RunRecord['status']> = new Set(FINAL_RUN_STATUSES);

/** The App Home tab: what needs the viewer, their running and recent runs, their schedules. */
export function appHomeView(input: AppHomeInput): HomeView {
  // The App Home is private: a run's id is there for `tandem show` and `/tandem cancel`.
  const link = (run: RunRecord) => ({ withId: true, ...optionalLink(input.permalinks?.get(run.id)) });
  let index = 0;
  const blocks: Block[] = [
    header('Tandem'),
    section('Mention me with a task in a channel (`@Tandem check CI on acme/api`) and I will plan it, ask for approval, and run it in the thread.'),
  ];
  const needs = input.needsYou ?? [];
  blocks.push(header(`Waiting for you${needs.length > 0 ? ` (${needs.length})` : ''}`));
  if (needs.length === 0) blocks.push(context('Nothing is waiting for you.'));
  for (const need of needs.slice(0, 15)) {
    const handed = need.handedBy ? ` — handed to you by ${mention(need.handedBy)}` : '';
    const where = need.permalink ? { withId: true, permalink: need.permalink } : link(need.run);
    blocks.push(runSection(need.run, index++, { ...where, note: `_${escapeText(need.what)}_${handed}` }));
  }

  const running = input.runs.filter((run) => !FINISHED.has(run.status));
  const recent = input.runs.filter((run) => FINISHED.has(run.status));
  blocks.push(header('Running'));
  if (running.length === 0) blocks.push(context('None of your runs is in progress.'));
  for (const run of running.slice(0, 15)) blocks.push(runSection(run, index++, link(run)));
  blocks.push(header('Recent'));
  if (recent.length === 0) blocks.push(context('_No finished runs yet._'));
  for (const run of recent.slice(0, 15)) blocks.push(runSection(run, index++, link(run)));

  const schedules = input.schedules ?? [];
  blocks.push(header('Schedules'));
  if (schedules.length === 0) blocks.push(context('You have no schedules. Mention me with `every weekday at 09:00 …` to add one.'));
  for (const schedule of schedules.slice(0, 15)) {
    const next = schedule.nextFires[0] ? ` · next: ${escapeText(schedule.nextFires[0])}` : '';
    blocks.push(section(`:calendar: ${escapeText(truncate(schedule.task, 200))} · <#${schedule.channel}>${next}`));
  }
  blocks.push(context('`/tandem help` lists the commands.'));
  return { type: 'home', blocks };
}
