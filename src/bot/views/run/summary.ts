import { encodeTryAgain, PLANNER_TRY_AGAIN_ACTION } from './planner-unavailable.ts';
import type { RunVerdict } from '../../../agent/model/run-outcome.ts';
import type { StepResult } from '../../../agent/model/step-results.ts';
import type { RunSummary } from '../../../agent/ports/surface.ts';
import { feedbackBlock } from './feedback.ts';
import { ANSWER_CHARS, answerMessages, continuesBelow } from './summary-answers.ts';
import { MessageBlocksSchema, type MessageBlock, type MessageView } from '../limits.ts';
import { saveRunbookButton } from '../save-runbook-modal.ts';
import { STEP_EMOJI } from './status-board.ts';
import { context, escapeText, formatDuration, link, packLines, section, storedWords, truncate } from '../text.ts';

/** Summaries stored before outcomes were derived say their status. */
const OUTCOME: Record<RunSummary['outcome'], string> = {
  succeeded: 'Succeeded',
  failed: 'Failed',
  aborted: 'Aborted',
  cancelled: 'Cancelled',
  rejected: 'Rejected',
  expired: 'Expired',
};

const EMOJI: Record<RunVerdict['kind'], string> = {
  succeeded: ':white_check_mark:',
  'finished-with-problems': ':warning:',
  failed: ':x:',
  cancelled: ':no_entry_sign:',
  aborted: ':octagonal_sign:',
  rejected: ':no_good:',
  expired: ':hourglass:',
  'in-progress': ':hourglass_flowing_sand:',
};

/**
 * A plan nobody approved in time: nobody rejected it, and it says so. A summary owed before migration 0016
 * says `rejected` with `expired: true`.
 */
export function isExpiredSummary(summary: Pick<RunSummary, 'outcome' | 'expired'>): boolean {
  return summary.outcome === 'expired' || (summary.outcome === 'rejected' && summary.expired === true);
}

const LEGACY_EMOJI: Record<RunSummary['outcome'], string> = {
  succeeded: EMOJI.succeeded,
  failed: EMOJI.failed,
  aborted: EMOJI.aborted,
  cancelled: EMOJI.cancelled,
  rejected: EMOJI.rejected,
  expired: EMOJI.expired,
};

/** Outcomes of a plan that never ran: there is nothing to judge, and nothing changed to say. */
const DECIDED_BEFORE_RUNNING: ReadonlySet<RunSummary['outcome']> = new Set(['rejected', 'expired']);

export interface SummaryOptions {
  /** TANDEM_SHOW_COST: tokens and cost under the summary (they are always in `tandem show`, App Home and /metrics). */
  showCost?: boolean;
}

/**
 * The run's last word in the thread. It leads with its true outcome and what the person asked for (each
 * read's answer, each change in the past tense with its link), then what was rolled back and what remains.
 * Ids, tokens and cost are not in it unless the team asked for cost (`showCost`).
 */
export function summaryMessage(summary: RunSummary, options: SummaryOptions = {}): MessageView {
  return summaryMessages(summary, options)[0]!;
}

/** The summary, then the whole text of each model answer it cut (summary-answers.ts), in the order they are posted. */
export function summaryMessages(summary: RunSummary, options: SummaryOptions = {}): MessageView[] {
  return [summaryOnly(summary, options), ...answerMessages(summary.results ?? [])];
}

function summaryOnly(summary: RunSummary, options: SummaryOptions): MessageView {
  const verdict = summary.verdict;
  // "Aborted — rolled back …; still in place: …": the label leads (as on the board's title), the rest follows it.
  const [told, ...rest] = (verdict?.headline || OUTCOME[summary.outcome]).split(' — ');
  const detail = rest.join(' — ');
  const expired = isExpiredSummary(summary);
  const label = expired ? OUTCOME.expired : told!;
  const emoji = expired ? EMOJI.expired : verdict ? EMOJI[verdict.kind] : LEGACY_EMOJI[summary.outcome];
  const lines = [`${emoji} *${escapeText(label)}:* ${escapeText(truncate(summary.goal, 500))}`];
  if (detail) lines.push(escapeText(truncate(detail.charAt(0).toUpperCase() + detail.slice(1), 800)));
  if (summary.reason) lines.push(storedWords(summary.reason, 1000));
  const head = section(lines.join('\n'));
  const tail = tailBlocks(summary, options);
  // A run with many results may not fit one message with all of them: their budgets shrink until it does.
  const drafts = [1, 0.5, 0.25, 0.1].map((scale) => () => [head, ...resultBlocks(summary, scale), ...tail]);
  let blocks = drafts[0]!();
  for (const draft of drafts.slice(1)) {
    if (MessageBlocksSchema.safeParse(blocks).success) break;
    blocks = draft();
  }
  return { text: truncate(`${emoji} ${escapeText(label)}: ${escapeText(summary.goal)}`, 300), blocks };
}

/** What closes the summary: checks not made, the fallback planner, time (and cost when asked), and its buttons. */
function tailBlocks(summary: RunSummary, options: SummaryOptions): MessageBlock[] {
  const verdict = summary.verdict;
  const blocks: MessageBlock[] = [];
  if (verdict && verdict.unchecked.length > 0) {
    blocks.push(
      context(
        `:warning: The check of ${escapeText(truncate(verdict.unchecked.join(', '), 400))} could not be made (the model that checks results did not answer): look at the result yourself.`,
      ),
    );
  }
  if (summary.fallbackPlanner) {
    blocks.push(
      context(`Planned by the fallback model ${escapeText(summary.fallbackPlanner.author)}: ${escapeText(truncate(summary.fallbackPlanner.reason, 300))}`),
    );
  }
  const footer: string[] = [];
  if (summary.durationMs >= 1000) footer.push(`Took ${formatDuration(summary.durationMs)}`);
  if (options.showCost) {
    const tokens = summary.tokens.input + summary.tokens.output;
    footer.push(`${tokens.toLocaleString('en-US')} tokens · $${summary.costUsd.toFixed(4)}`);
    if (summary.models?.length) {
      const perModel = summary.models
        .slice(0, 8)
        .map(
          (m) => `${escapeText(m.role)} ${escapeText(m.model)}: ${(m.inputTokens + m.outputTokens).toLocaleString('en-US')} tokens, $${m.costUsd.toFixed(4)}`,
        );
      blocks.push(context(truncate(perModel.join(' · '), 2900)));
    }
  }
  if (footer.length) blocks.push(context(footer.join(' · ')));

  // A procedure that worked can be kept (the next matching task is planned from it without a model), unless it came from one.
  const planVersion = summary.run.currentPlanVersion;
  const succeeded = verdict ? verdict.kind === 'succeeded' : summary.outcome === 'succeeded';
  if (succeeded && planVersion && !summary.fromRunbook && summary.run.origin !== 'schedule') {
    blocks.push({ type: 'actions', block_id: 'summary-actions', elements: [saveRunbookButton({ runId: summary.run.id, planVersion })] });
  }
  // An expired plan can only be proposed again: the same task planned afresh, as a new version to approve.
  if (isExpiredSummary(summary)) {
    const propose = {
      type: 'button' as const,
      text: { type: 'plain_text' as const, text: 'Propose again' },
      action_id: PLANNER_TRY_AGAIN_ACTION,
      value: encodeTryAgain(summary.run.id),
    };
    blocks.push({ type: 'actions', block_id: 'summary-propose-again', elements: [propose] });
  }
  // A run that ran can be judged; a plan turned down or cancelled before it ran has nothing to judge yet.
  if (planVersion && !DECIDED_BEFORE_RUNNING.has(summary.outcome) && summary.ran !== false) blocks.push(feedbackBlock(summary.run.id, planVersion));
  return blocks;
}

/**
 * The parts after the outcome line: answers, changes, what is uncertain or not done, what was rolled back
 * and what remains. `scale` shrinks their character budgets until the whole message fits Slack's limit.
 */
function resultBlocks(summary: RunSummary, scale: number): MessageBlock[] {
  const verdict = summary.verdict;
  const out: MessageBlock[] = [];
  const answers = (summary.results ?? []).filter((result) => result.kind === 'answer');
  if (answers.length > 0)
    out.push(...packLines(answers.flatMap(answerLines), { maxBlocks: 12, maxChars: Math.round(6000 * scale) }, (n) => `_…and ${n} more lines_`));

  const changes = summary.results
    ? summary.results.filter((result) => result.kind === 'change').map(changeLine)
    : summary.changes.map((change) => `• ${change.url ? link(change.url, truncate(change.title, 150)) : escapeText(truncate(change.title, 150))}`);
  const uncertain = verdict?.uncertain ?? [];
  if (changes.length > 0)
    out.push(...packLines(['*What changed:*', ...changes], { maxBlocks: 10, maxChars: Math.round(4000 * scale) }, (n) => `_…and ${n} more_`));
  // A change a person went on with although its check failed: made, and not checked (it is not "not done").
  const checkSkipped = (verdict?.checkSkipped ?? []).map(
    (title) => `• ${STEP_EMOJI.succeeded} ${escapeText(truncate(title, 150))} — its check failed and a person skipped it; the change stands`,
  );
  if (checkSkipped.length > 0)
    out.push(...packLines(['*Check skipped:*', ...checkSkipped], { maxBlocks: 4, maxChars: Math.round(2000 * scale) }, (n) => `_…and ${n} more_`));
  if (uncertain.length > 0) {
    // A person chose to go on without knowing: the step is still uncertain, and the line says both.
    const skipped = new Set(verdict?.skippedUncertain ?? []);
    const lines = uncertain.map(
      (title) =>
        `• ${STEP_EMOJI.uncertain} ${escapeText(truncate(title, 150))} — ${
          skipped.has(title)
            ? 'skipped by a person, but it may or may not have taken effect; check it'
            : 'may or may not have taken effect; check it before trying again'
        }`,
    );
    out.push(...packLines(['*Uncertain:*', ...lines], { maxBlocks: 4, maxChars: Math.round(2000 * scale) }, (n) => `_…and ${n} more_`));
  }
  out.push(...undoneBlocks(verdict, scale));
  // "Nothing" is said only when it is true: nothing changed for sure, and nothing may have.
  if (changes.length === 0 && uncertain.length === 0 && !DECIDED_BEFORE_RUNNING.has(summary.outcome)) out.push(section('*What changed:* nothing'));

  if (summary.rolledBack.length > 0) {
    const lines = summary.rolledBack.map((step) => `${STEP_EMOJI[step.status]} ${escapeText(truncate(step.title, 150))}`);
    out.push(...packLines(['*Rolled back:*', ...lines], { maxBlocks: 6, maxChars: Math.round(2000 * scale) }, (n) => `_…and ${n} more_`));
  }
  if (verdict && verdict.stillInPlace.length > 0) {
    const lines = verdict.stillInPlace.map((title) => `• ${escapeText(truncate(title, 150))}`);
    out.push(...packLines(['*Still in place:*', ...lines], { maxBlocks: 4, maxChars: Math.round(2000 * scale) }, (n) => `_…and ${n} more_`));
  }
  return out;
}

/** What did not get done, by name (a skipped, failed or stopped step), and what remains (the steps never run). */
function undoneBlocks(verdict: RunSummary['verdict'], scale: number): MessageBlock[] {
  const out: MessageBlock[] = [];
  // What did not get done, by name: a skipped, failed or stopped step is never left for the reader to guess.
  const notDone = [
    ...(verdict?.skipped ?? []).map((title) => `• ${STEP_EMOJI.skipped} ${escapeText(truncate(title, 150))} — skipped`),
    ...(verdict?.failed ?? []).map((title) => `• ${STEP_EMOJI.failed} ${escapeText(truncate(title, 150))} — failed`),
    ...(verdict?.stopped ?? []).map((title) => `• ${STEP_EMOJI.cancelled} ${escapeText(truncate(title, 150))} — stopped before it finished`),
  ];
  if (notDone.length > 0) out.push(...packLines(['*Not done:*', ...notDone], { maxBlocks: 4, maxChars: Math.round(2000 * scale) }, (n) => `_…and ${n} more_`));
  // What remains: the steps a cancel, an Abort or an expired Confirm left unstarted.
  const notRun = (verdict?.notRun ?? []).map((title) => `• ${escapeText(truncate(title, 150))}`);
  if (notRun.length > 0) out.push(...packLines(['*Not run:*', ...notRun], { maxBlocks: 3, maxChars: Math.round(2000 * scale) }, (n) => `_…and ${n} more_`));
  return out;
}

/** A read's answer: its sentence (a model's long text cut, the whole of it below), a list's first items and a link to the rest. */
function answerLines(result: StepResult): string[] {
  const cut = continuesBelow(result) ? ' _(the whole answer follows below)_' : '';
  // Cut once escaped (an entity is never split), so the note stays within the line's 1,500 characters.
  const text = `${truncate(escapeText(result.text), ANSWER_CHARS)}${cut}`;
  const lines = [result.link ? `• ${text} (${link(result.link.url, truncate(result.link.label, 80))})` : `• ${text}`];
  for (const item of result.items ?? []) lines.push(`    ◦ ${link(item.url, truncate(item.label, 150))}`);
  const hidden = (result.total ?? 0) - (result.items?.length ?? 0);
  if (hidden > 0) lines.push(result.rest ? `    ◦ ${link(result.rest, `${hidden} more`)}` : `    ◦ _and ${hidden} more_`);
  return lines;
}

/** A change in the past tense, its object linked by what it is. */
function changeLine(result: StepResult): string {
  const text = escapeText(truncate(result.text, 300));
  if (!result.link) return `• ${text}`;
  // "Opened acme/api#42 “Flaky test”": the label inside the sentence becomes the link.
  const label = escapeText(result.link.label);
  const at = text.indexOf(label);
  if (at !== -1) return `• ${text.slice(0, at)}${link(result.link.url, result.link.label)}${text.slice(at + label.length)}`;
  return `• ${text} (${link(result.link.url, truncate(result.link.label, 80))})`;
}
