import type { StepStatus } from '../../agent/ports/run-store.ts';
import type { BoardState, BoardStep } from '../../agent/ports/surface.ts';
import type { Block, MessageView } from './limits.ts';
import { context, escapeText, formatDuration, header, link, packLines, truncate } from './text.ts';

export const STEP_EMOJI: Record<StepStatus, string> = {
  pending: ':white_circle:',
  running: ':arrows_counterclockwise:',
  waiting: ':hourglass_flowing_sand:',
  succeeded: ':white_check_mark:',
  failed: ':x:',
  skipped: ':fast_forward:',
  cancelled: ':no_entry_sign:',
  uncertain: ':grey_question:',
};

export const RUN_LABEL: Record<BoardState['runStatus'], string> = {
  planning: 'Planning',
  'awaiting-approval': 'Waiting for approval',
  'awaiting-answer': 'Waiting for an answer',
  executing: 'Running',
  paused: 'Paused — waiting for a person',
  'rolling-back': 'Rolling back',
  succeeded: 'Succeeded',
  failed: 'Failed',
  aborted: 'Aborted',
  cancelled: 'Cancelled',
  rejected: 'Rejected',
};

/** The one message kept current while a run executes: a line per step, the run's state on top. */
export function statusBoard(board: BoardState): MessageView {
  const forward = board.steps.filter((step) => step.kind === 'forward');
  const rollback = board.steps.filter((step) => step.kind === 'rollback');
  const done = forward.filter((step) => step.status === 'succeeded').length;
  const label = RUN_LABEL[board.runStatus];

  const blocks: Block[] = [header(`${label}: ${board.goal}`)];
  const lines = forward.map((step, index) => stepLine(step, index + 1));
  if (rollback.length > 0) lines.push('*Rollback*', ...rollback.map((step, index) => stepLine(step, index + 1)));
  if (lines.length > 0) blocks.push(...packLines(lines, { maxBlocks: 40, maxChars: 9000 }, (n) => `_…and ${n} more steps_`));
  blocks.push(
    context(`Plan v${board.planVersion} · ${done}/${forward.length} steps done · ${formatDuration(board.elapsedMs)} · run \`${escapeText(board.runId)}\``),
  );
  return { text: truncate(`${label}: ${escapeText(board.goal)} (${done}/${forward.length} steps done)`, 300), blocks };
}

/** The state in words too: an emoji alone says nothing to a screen reader or a search. */
export const STEP_LABEL: Record<StepStatus, string> = {
  pending: 'waiting',
  running: 'running',
  waiting: 'waiting for an answer',
  succeeded: 'done',
  failed: 'failed',
  skipped: 'skipped',
  cancelled: 'cancelled',
  uncertain: 'uncertain',
};

function stepLine(step: BoardStep, number: number): string {
  const parts = [`${STEP_EMOJI[step.status]} ${number}. ${escapeText(truncate(step.title, 120))}`, STEP_LABEL[step.status]];
  if (step.elapsedMs !== null) parts.push(formatDuration(step.elapsedMs));
  if (step.url) parts.push(link(step.url, 'link'));
  if (step.note) parts.push(`_${escapeText(truncate(step.note, 160))}_`);
  return parts.join(' · ');
}
