import type { types } from '@slack/bolt';
import type { StepStatus } from '../../agent/ports/run-store.ts';
import type { BoardState, BoardStep } from '../../agent/ports/surface.ts';
import { LIMITS, MessageBlocksSchema, type MessageView } from './limits.ts';
import { RUN_LABEL, STEP_LABEL } from './status-board.ts';
import { context, escapeText, formatDuration, truncate } from './text.ts';

type TaskStatus = types.TaskCardBlock['status'];

/**
 * Slack's task card has four states; ours has eight. Skipped and cancelled steps did not do their
 * work, so neither reads as complete: a skipped step stays an open box (it never ran), a cancelled
 * one is marked as stopped; the card's details say which in words.
 */
const TASK_STATUS: Record<StepStatus, TaskStatus> = {
  pending: 'pending',
  running: 'in_progress',
  waiting: 'in_progress',
  succeeded: 'complete',
  failed: 'error',
  uncertain: 'error',
  skipped: 'pending',
  cancelled: 'error',
};

const DETAIL_WORDS: Partial<Record<StepStatus, string>> = {
  skipped: 'skipped — this step did not run',
  cancelled: 'cancelled — stopped before it finished',
  uncertain: 'uncertain — it may or may not have taken effect',
};

/**
 * The status board as Slack's native checklist: one `plan` block with a task card per step (rollback
 * steps as their own cards after the forward ones), and the run's numbers in a context line. Returns
 * undefined when it cannot fit Slack's limits (tasks per plan, message size), so the caller draws
 * sections instead; the fallback text is the same either way so notifications and search read alike.
 */
export function planBoard(board: BoardState): MessageView | undefined {
  const forward = board.steps.filter((step) => step.kind === 'forward');
  const rollback = board.steps.filter((step) => step.kind === 'rollback');
  if (forward.length + rollback.length > LIMITS.planTasks) return undefined;
  const done = forward.filter((step) => step.status === 'succeeded').length;
  const label = RUN_LABEL[board.runStatus];
  const footer = context(
    `Plan v${board.planVersion} · ${done}/${forward.length} steps done · ${formatDuration(board.elapsedMs)} · run \`${escapeText(board.runId)}\``,
  );
  const text = truncate(`${label}: ${escapeText(board.goal)} (${done}/${forward.length} steps done)`, 300);
  const cards = (full: boolean) => [
    ...forward.map((step, index) => taskCard(step, `${index + 1}.`, full)),
    ...rollback.map((step, index) => taskCard(step, `Rollback ${index + 1}.`, full)),
  ];

  // A long run's cards may not fit the message with every result; the results go before the board does.
  for (const full of [true, false]) {
    const plan: types.PlanBlock = { type: 'plan', title: truncate(`${label}: ${board.goal}`, LIMITS.planTitle), tasks: cards(full) };
    const blocks = [plan, footer];
    if (MessageBlocksSchema.safeParse(blocks).success) return { text, blocks };
  }
  return undefined;
}

function taskCard(step: BoardStep, number: string, full: boolean): types.TaskCardBlock {
  const idPrefix = step.kind === 'rollback' ? 'rollback-' : '';
  const details = [DETAIL_WORDS[step.status] ?? STEP_LABEL[step.status]];
  if (step.elapsedMs !== null) details.push(formatDuration(step.elapsedMs));
  const card: types.TaskCardBlock = {
    type: 'task_card',
    task_id: truncate(`${idPrefix}${step.stepId}`, LIMITS.id),
    title: truncate(`${number} ${step.title}`, LIMITS.taskTitle),
    status: TASK_STATUS[step.status],
    details: richText(details.join(' · ')),
  };
  if (full && step.note) card.output = richText(truncate(step.note, LIMITS.taskText));
  if (step.url && step.url.length <= LIMITS.url) card.sources = [{ type: 'url', url: step.url, text: 'link' }];
  return card;
}

function richText(text: string): types.RichTextBlock {
  return { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }] };
}
