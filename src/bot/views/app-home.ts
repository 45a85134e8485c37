import type { RunRecord } from '../../agent/ports/run-store.ts';
import type { Block, HomeView } from './limits.ts';
import { context, escapeText, header, section, truncate } from './text.ts';

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
};

/** One line per run; `permalink` leads to the run's thread when the surface knows it. */
export function runLine(run: RunRecord, permalink?: string): string {
  const task = escapeText(truncate(run.task.replace(/\s+/g, ' '), 140));
  const where = permalink ? `<${permalink}|thread>` : `<#${run.conversation.channel}>`;
  return `${RUN_STATUS_EMOJI[run.status]} *${run.status}* · ${task} · ${where} · \`${escapeText(run.id)}\` · ${run.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The App Home tab: the person's recent runs and how to start one. */
export function appHomeView(input: { userId: string; runs: RunRecord[] }): HomeView {
  const blocks: Block[] = [
    header('Tandem'),
    section('Mention me with a task in a channel (`@Tandem check CI on acme/api`) and I will plan it, ask for approval, and run it in the thread.'),
  ];
  blocks.push(header('Your recent runs'));
  if (input.runs.length === 0) blocks.push(section('_No runs yet._'));
  for (const run of input.runs.slice(0, 20)) blocks.push(section(runLine(run)));
  blocks.push(context('`/tandem help` lists the commands.'));
  return { type: 'home', blocks };
}
