import type { types } from '@slack/bolt';
import type { StepStatus } from '../../../agent/ports/run-store.ts';
import type { BoardState, BoardStep } from '../../../agent/ports/surface.ts';
import { LIMITS, MessageBlocksSchema, type MessageBlock, type MessageView } from '../limits.ts';
import {
  type BoardOptions,
  boardFooter,
  boardHeadline,
  boardText,
  cancelRunActions,
  stepDuration,
  stepWords,
  urlLabel,
  WAIT_LINK_LABEL,
  waitingLine,
  waitLinkOf,
} from './status-board.ts';
import { context, escapeText, section, truncate } from '../text.ts';

type TaskStatus = types.TaskCardBlock['status'];

/**
 * Slack's task card has four states; ours has eight. Skipped and cancelled steps did not do their
 * work, so neither reads as complete nor as waiting to start: both are marked as not done, and the
 * card's title and details say which in words.
 */
const TASK_STATUS: Record<StepStatus, TaskStatus> = {
  pending: 'pending',
  running: 'in_progress',
  waiting: 'in_progress',
  succeeded: 'complete',
  failed: 'error',
  uncertain: 'error',
  skipped: 'error',
  cancelled: 'error',
};

/** What a card's title adds so a state Slack's four do not have reads as itself. */
const TITLE_MARK: Partial<Record<StepStatus, string>> = {
  skipped: ' (skipped)',
  cancelled: ' (cancelled)',
  uncertain: ' (uncertain)',
};

const DETAIL_WORDS: Partial<Record<StepStatus, string>> = {
  skipped: 'skipped — this step did not count as done',
  cancelled: 'cancelled — stopped before it finished',
  uncertain: 'uncertain — it may or may not have taken effect',
};

/**
 * The status board as Slack's native checklist: one `plan` block with a task card per step (rollback
 * steps as their own cards after the forward ones), the outcome's detail and who the run waits for
 * under it, the run's numbers in a context line, and **Cancel run** while it runs. Returns undefined
 * when it cannot fit Slack's limits (tasks per plan, message size), so the caller draws sections
 * instead; the fallback text is the same either way so notifications and search read alike.
 */
export function planBoard(board: BoardState, options: BoardOptions = {}): MessageView | undefined {
  const forward = board.steps.filter((step) => step.kind === 'forward');
  const rollback = board.steps.filter((step) => step.kind === 'rollback');
  if (forward.length + rollback.length > LIMITS.planTasks) return undefined;
  const { label, detail } = boardHeadline(board);
  const under: MessageBlock[] = [];
  if (detail) under.push(section(escapeText(truncate(detail, 2900))));
  const waiting = waitingLine(board, options);
  if (waiting) under.push(context(waiting));
  under.push(context(boardFooter(board)));
  const cancel = cancelRunActions(board);
  if (cancel) under.push(cancel);
  const cards = (full: boolean) => [
    ...forward.map((step, index) => taskCard(step, `${index + 1}.`, full, waitLinkOf(step, options))),
    ...rollback.map((step, index) => taskCard(step, `Rollback ${index + 1}.`, full)),
  ];

  // A long run's cards may not fit the message with every result; the results go before the board does.
  for (const full of [true, false]) {
    const plan: types.PlanBlock = { type: 'plan', title: truncate(`${label}: ${board.goal}`, LIMITS.planTitle), tasks: cards(full) };
    const blocks = [plan, ...under];
    if (MessageBlocksSchema.safeParse(blocks).success) return { text: boardText(board), blocks };
  }
  return undefined;
}

function taskCard(step: BoardStep, number: string, full: boolean, waitLink?: string): types.TaskCardBlock {
  const idPrefix = step.kind === 'rollback' ? 'rollback-' : '';
  const details = [
    step.status === 'waiting' || step.unchecked || step.waitingFor === 'decision' ? stepWords(step) : (DETAIL_WORDS[step.status] ?? stepWords(step)),
  ];
  const took = stepDuration(step);
  if (took) details.push(took);
  const mark = step.status === 'succeeded' && step.unchecked ? ' (not checked)' : (TITLE_MARK[step.status] ?? '');
  const title = `${number} ${truncate(step.title, LIMITS.taskTitle - number.length - mark.length - 1)}${mark}`;
  const card: types.TaskCardBlock = {
    type: 'task_card',
    task_id: truncate(`${idPrefix}${step.stepId}`, LIMITS.id),
    title: truncate(title, LIMITS.taskTitle),
    status: TASK_STATUS[step.status],
    details: richText(details.join(' · ')),
  };
  if (full && step.note) card.output = richText(truncate(step.note, LIMITS.taskText));
  const sources: NonNullable<types.TaskCardBlock['sources']> = [];
  if (waitLink && waitLink.length <= LIMITS.url) sources.push({ type: 'url', url: waitLink, text: WAIT_LINK_LABEL });
  if (step.url && step.url.length <= LIMITS.url) sources.push({ type: 'url', url: step.url, text: truncate(urlLabel(step), 100) || 'link' });
  if (sources.length) card.sources = sources;
  return card;
}

function richText(text: string): types.RichTextBlock {
  return { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }] };
}
