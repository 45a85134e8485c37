import type { types } from '@slack/bolt';
import { FINAL_RUN_STATUSES, type StepStatus } from '../../../agent/ports/run-store.ts';
import type { BoardState, BoardStep } from '../../../agent/ports/surface.ts';
import { linkLabel } from '../../../agent/model/step-results.ts';
import type { Block, Button, MessageView } from '../limits.ts';
import { context, escapeText, formatDuration, header, link, mention, packLines, section, truncate } from '../text.ts';

export const CANCEL_RUN_ACTION = 'cancel-run';

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

/** A result that was not checked is not shown as a pass. */
const UNCHECKED_EMOJI = ':warning:';

/** Titles of runs whose board has no outcome (a board state from before outcomes were drawn). */
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
  expired: 'Expired',
};

const FINAL: ReadonlySet<BoardState['runStatus']> = new Set(FINAL_RUN_STATUSES);

/**
 * The run's state in a few words, the same on the board's title and in its fallback text: the true outcome
 * of an ended run (model/run-outcome.ts), what a running one does, "Replaced by plan v2" for a board whose
 * plan a newer version replaced. `detail` is the rest of an outcome's line ("rolled back …; still in place: …").
 */
export function boardHeadline(board: BoardState): { label: string; detail: string | null } {
  if (board.replacedBy) return { label: `Replaced by plan v${board.replacedBy}`, detail: null };
  if (FINAL.has(board.runStatus) && board.outcome?.headline) {
    const [label, ...rest] = board.outcome.headline.split(' — ');
    return { label: label!, detail: rest.length ? rest.join(' — ') : null };
  }
  const phase = board.phase;
  if (!phase) return { label: RUN_LABEL[board.runStatus], detail: null };
  switch (phase.phase) {
    case 'checking':
      return { label: 'Checking the results', detail: null };
    case 'waiting':
      return {
        label:
          phase.for === 'confirm' ? 'Waiting for an approver to confirm' : phase.for === 'answer' ? 'Waiting for an answer' : 'Paused — waiting for a decision',
        detail: null,
      };
    case 'rolling-back':
      return { label: 'Rolling back', detail: null };
    case 'planning':
      return { label: 'Planning', detail: null };
    case 'awaiting-approval':
      return { label: 'Waiting for approval', detail: null };
    default:
      return { label: 'Running', detail: null };
  }
}

/** What a board says besides the state it is given. */
export interface BoardOptions {
  /** TANDEM_ESCALATE_TO: who a run paused by an escalation waits for. */
  escalateTo?: string | undefined;
  /** Permalinks of the messages waiting steps wait on, by step id: the step links to its message. */
  waitLinks?: ReadonlyMap<string, string>;
  /** Permalink of the escalation the run as a whole waits on (a driver failure, a failed replan). */
  runWaitLink?: string;
}

/** The message a step waits on (an escalation, a question, a Confirm), while it waits. */
export function waitLinkOf(step: BoardStep, options: BoardOptions): string | undefined {
  if (step.kind !== 'forward' || !(step.status === 'waiting' || step.waitingFor === 'decision')) return undefined;
  return options.waitLinks?.get(step.stepId);
}

/** What the link to a step's waiting message says. */
export const WAIT_LINK_LABEL = 'the message waiting for you';

/** Who the run waits for, as mrkdwn with the person mentioned; undefined when it waits for nobody. */
export function waitingLine(board: BoardState, options: BoardOptions = {}): string | undefined {
  if (board.replacedBy || FINAL.has(board.runStatus)) return undefined;
  const forward = board.steps.filter((step) => step.kind === 'forward');
  const number = (step: BoardStep) => forward.indexOf(step) + 1;
  const waiting = board.steps.find((step) => step.status === 'waiting');
  if (waiting?.waitingFor === 'confirm') {
    const which = waiting.kind === 'forward' ? `step ${number(waiting)}` : 'an undo step';
    return `:raised_hand: Waiting for an approver to *Confirm* ${which} (${escapeText(truncate(waiting.title, 100))}) — the request is in this thread.`;
  }
  if (waiting) {
    const who = board.requester ? `${mention(board.requester)} (or an approver)` : 'the person who asked (or an approver)';
    return `:raised_hand: Waiting for ${who} to answer step ${number(waiting)} (${escapeText(truncate(waiting.title, 100))}) in this thread.`;
  }
  const undecided = forward.filter((step) => step.waitingFor === 'decision');
  if (undecided.length || (board.phase?.phase === 'waiting' && board.phase.for === 'decision')) {
    const who = options.escalateTo ? mention(options.escalateTo) : 'a person';
    // Each failed step waits on its own decision; the rest of the run goes on around them.
    const which = undecided.map((step) => `step ${number(step)} (${escapeText(truncate(step.title, 100))})`);
    if (which.length === 0) {
      const where = options.runWaitLink ? link(options.runWaitLink, WAIT_LINK_LABEL) : 'the question is in this thread';
      return `:raised_hand: Waiting for ${who} to decide what happens next — ${where}.`;
    }
    const list = which.length > 1 ? `${which.slice(0, -1).join(', ')} and ${which.at(-1)}` : which[0]!;
    // A failed step no message of its own waits on any more (e.g. its replan failed): the run's own escalation is the question.
    const unlinked = undecided.every((step) => !waitLinkOf(step, options));
    if (options.runWaitLink && unlinked) return `:raised_hand: Waiting for ${who} to decide on ${list} — ${link(options.runWaitLink, WAIT_LINK_LABEL)}.`;
    return `:raised_hand: Waiting for ${who} to decide on ${list} — ${which.length > 1 ? 'each question is' : 'the question is'} in this thread.`;
  }
  return undefined;
}

/** Plan version, progress and time, without ids: a duration that rounds to nothing is left out. */
export function boardFooter(board: BoardState): string {
  const parts = [`Plan v${board.planVersion}`, stepsDone(board)];
  if (board.elapsedMs >= 1000) parts.push(formatDuration(board.elapsedMs));
  return parts.join(' · ');
}

/** The fallback text of a board, the same whichever way it is drawn. */
export function boardText(board: BoardState): string {
  return truncate(`${boardHeadline(board).label}: ${escapeText(board.goal)} (${stepsDone(board)})`, 300);
}

/**
 * "2/2 steps done, 1 not checked": a step that ran and whose result could not be checked is done (its card is
 * complete, marked not checked), and the count says so rather than leaving it out.
 */
function stepsDone(board: BoardState): string {
  const forward = board.steps.filter((step) => step.kind === 'forward');
  const done = forward.filter((step) => step.status === 'succeeded');
  const unchecked = done.filter((step) => step.unchecked).length;
  return `${done.length}/${forward.length} steps done${unchecked ? `, ${unchecked} not checked` : ''}`;
}

/** **Cancel run** on the board of a run still going (a confirm dialog first); none on an ended or replaced board. */
export function cancelRunActions(board: BoardState): Block | undefined {
  if (board.replacedBy || FINAL.has(board.runStatus)) return undefined;
  // Slack's confirmation dialog: plain text throughout (its text at most 300 characters, its buttons 30).
  const confirm: types.ConfirmationDialog = {
    title: { type: 'plain_text', text: 'Cancel this run?' },
    text: { type: 'plain_text', text: 'No further steps will start. A step already running is stopped; what it may have done is reported in the thread.' },
    confirm: { type: 'plain_text', text: 'Cancel run' },
    deny: { type: 'plain_text', text: 'Keep running' },
    style: 'danger',
  };
  const button: Button = {
    type: 'button',
    text: { type: 'plain_text', text: 'Cancel run' },
    action_id: CANCEL_RUN_ACTION,
    value: board.runId,
    style: 'danger',
    confirm,
  };
  return { type: 'actions', block_id: 'board-actions', elements: [button] };
}

/** The one message kept current while a run executes: a line per step, the run's state on top. */
export function statusBoard(board: BoardState, options: BoardOptions = {}): MessageView {
  const forward = board.steps.filter((step) => step.kind === 'forward');
  const rollback = board.steps.filter((step) => step.kind === 'rollback');
  const { label, detail } = boardHeadline(board);

  const blocks: Block[] = [header(`${label}: ${board.goal}`)];
  if (detail) blocks.push(section(escapeText(truncate(detail, 2900))));
  const lines = forward.map((step, index) => stepLine(step, index + 1, waitLinkOf(step, options)));
  if (rollback.length > 0) lines.push('*Rollback*', ...rollback.map((step, index) => stepLine(step, index + 1)));
  if (lines.length > 0) blocks.push(...packLines(lines, { maxBlocks: 38, maxChars: 9000 }, (n) => `_…and ${n} more steps_`));
  const waiting = waitingLine(board, options);
  if (waiting) blocks.push(context(waiting));
  blocks.push(context(boardFooter(board)));
  const cancel = cancelRunActions(board);
  if (cancel) blocks.push(cancel);
  return { text: boardText(board), blocks };
}

/** The state in words too: an emoji alone says nothing to a screen reader or a search. */
export const STEP_LABEL: Record<StepStatus, string> = {
  pending: 'not started',
  running: 'running',
  waiting: 'waiting for an answer',
  succeeded: 'done',
  failed: 'failed',
  skipped: 'skipped',
  cancelled: 'cancelled',
  uncertain: 'uncertain — may or may not have taken effect',
};

/** A step's state in words, with whom a wait is for and a result that could not be checked. */
export function stepWords(step: BoardStep): string {
  if (step.status === 'waiting') return step.waitingFor === 'confirm' ? 'waiting for an approver to confirm' : 'waiting for an answer';
  if (step.waitingFor === 'decision') return `${STEP_LABEL[step.status]} — waiting for a person to decide (the question is in this thread)`;
  if (step.status === 'succeeded' && step.unchecked) return 'done, but its result could not be checked';
  return STEP_LABEL[step.status];
}

/** A step's time, when it means something: a step that took under a second has none. */
export function stepDuration(step: BoardStep): string | undefined {
  return step.elapsedMs !== null && step.elapsedMs >= 1000 ? formatDuration(step.elapsedMs) : undefined;
}

/** A link's label: what it is ("acme/api#42"). */
export function urlLabel(step: BoardStep): string {
  return step.urlLabel ?? (step.url ? linkLabel(step.url) : '');
}

function stepLine(step: BoardStep, number: number, waitLink?: string): string {
  const emoji = step.status === 'succeeded' && step.unchecked ? UNCHECKED_EMOJI : STEP_EMOJI[step.status];
  const parts = [`${emoji} ${number}. ${escapeText(truncate(step.title, 120))}`, stepWords(step)];
  if (waitLink) parts.push(link(waitLink, WAIT_LINK_LABEL));
  const took = stepDuration(step);
  if (took) parts.push(took);
  if (step.url) parts.push(link(step.url, truncate(urlLabel(step), 80)));
  if (step.note) parts.push(`_${escapeText(truncate(step.note, 160))}_`);
  return parts.join(' · ');
}
