/**
 * Under TANDEM_POLICY (decision 028): who can approve which steps of a plan and how many approvals each
 * still needs ("step 2 (“Merge it”) needs two members of @api-owners (1 of 2 approvals)"). Plain data in, blocks out; the
 * plan message adds these after its steps. No lines: no blocks (the settings decide, as before).
 */
import type { ProposedPlan } from '../../../agent/ports/surface.ts';
import type { Block } from '../limits.ts';
import { lineSections, selectLines } from '../message-split.ts';
import { escapeText } from '../text.ts';

export function approvalProgressBlocks(proposal: Pick<ProposedPlan, 'approvalProgress'>): Block[] {
  const lines = proposal.approvalProgress ?? [];
  if (lines.length === 0) return [];
  const shown = lines.map((line) => ({ text: `• ${escapeText(line)}`, keep: true }));
  return lineSections(['*Who can approve:*', ...selectLines(shown, 2500, (n) => `_…and ${n} more steps_`)]);
}
