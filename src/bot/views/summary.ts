import type { RunSummary } from '../../agent/ports/surface.ts';
import { feedbackBlock } from './feedback.ts';
import type { MessageBlock, MessageView } from './limits.ts';
import { saveRunbookButton } from './save-runbook-modal.ts';
import { STEP_EMOJI } from './status-board.ts';
import { context, escapeText, formatDuration, link, packLines, section, storedWords, truncate } from './text.ts';

const OUTCOME: Record<RunSummary['outcome'], string> = {
  succeeded: ':white_check_mark: Done',
  failed: ':x: Failed',
  aborted: ':octagonal_sign: Aborted',
  cancelled: ':no_entry_sign: Cancelled',
  rejected: ':no_good: Rejected',
};

/** The run's last word in the thread: how it ended, what it changed, what it cost. */
export function summaryMessage(summary: RunSummary): MessageView {
  const outcome = OUTCOME[summary.outcome];
  const blocks: MessageBlock[] = [
    section(`*${outcome}:* ${escapeText(truncate(summary.goal, 500))}${summary.reason ? `\n${storedWords(summary.reason, 1000)}` : ''}`),
  ];

  const changes = summary.changes.map((change) => `• ${change.url ? link(change.url, truncate(change.title, 150)) : escapeText(truncate(change.title, 150))}`);
  if (changes.length > 0) blocks.push(...packLines(['*What changed:*', ...changes], { maxBlocks: 15, maxChars: 5000 }, (n) => `_…and ${n} more_`));
  else blocks.push(section('*What changed:* nothing'));

  if (summary.rolledBack.length > 0) {
    const lines = summary.rolledBack.map((step) => `${STEP_EMOJI[step.status]} ${escapeText(truncate(step.title, 150))}`);
    blocks.push(...packLines(['*Rolled back:*', ...lines], { maxBlocks: 10, maxChars: 3000 }, (n) => `_…and ${n} more_`));
  }
  if (summary.fallbackPlanner) {
    blocks.push(
      context(`Planned by the fallback model ${escapeText(summary.fallbackPlanner.author)}: ${escapeText(truncate(summary.fallbackPlanner.reason, 300))}`),
    );
  }
  const tokens = summary.tokens.input + summary.tokens.output;
  if (summary.models?.length) {
    const perModel = summary.models
      .slice(0, 8)
      .map((m) => `${escapeText(m.role)} ${escapeText(m.model)}: ${(m.inputTokens + m.outputTokens).toLocaleString('en-US')} tokens, $${m.costUsd.toFixed(4)}`);
    blocks.push(context(truncate(perModel.join(' · '), 2900)));
  }
  blocks.push(
    context(
      `${formatDuration(summary.durationMs)} · ${tokens.toLocaleString('en-US')} tokens (${summary.tokens.input.toLocaleString('en-US')} in, ${summary.tokens.output.toLocaleString('en-US')} out) · $${summary.costUsd.toFixed(4)} · run \`${escapeText(summary.run.id)}\``,
    ),
  );
  // A procedure that worked can be kept: the next matching task is planned from it without a model.
  const planVersion = summary.run.currentPlanVersion;
  if (summary.outcome === 'succeeded' && planVersion) {
    blocks.push({ type: 'actions', block_id: 'summary-actions', elements: [saveRunbookButton({ runId: summary.run.id, planVersion })] });
  }
  // Any plan that ran (or was turned down) can be judged; the click is kept with the version and its author.
  if (planVersion) blocks.push(feedbackBlock(summary.run.id, planVersion));
  return { text: truncate(`${outcome}: ${escapeText(summary.goal)}`, 300), blocks };
}
