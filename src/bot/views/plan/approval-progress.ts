/**
 * Under TANDEM_POLICY (decision 028): who can approve which steps of a plan and how many approvals each
 * still needs ("step 2 (“Merge it”) needs two members of @api-owners (1 of 2 approvals)"). Plain data in, blocks out; the
 * plan message adds these after its steps. No lines: no blocks (the settings decide, as before).
 */
import type { ProposedPlan } from '../../../agent/ports/surface.ts';
import type { Block } from '../limits.ts';
import { lineSections, selectLines } from '../message-split.ts';
import { escapeText } from '../text.ts';

/** The progress sections are marked, so a process that did not post the plan can redraw them in the message Slack holds. */
export const APPROVAL_PROGRESS_BLOCK = 'approval-progress';

export function approvalProgressBlocks(proposal: Pick<ProposedPlan, 'approvalProgress'>): Block[] {
  const lines = proposal.approvalProgress ?? [];
  if (lines.length === 0) return [];
  const shown = lines.map((line) => ({ text: `• ${escapeText(line)}`, keep: true }));
  const sections = lineSections(['*Who can approve:*', ...selectLines(shown, 2500, (n) => `_…and ${n} more steps_`)]);
  return sections.map((block, index) => ({ ...block, block_id: `${APPROVAL_PROGRESS_BLOCK}-${index}` }));
}

/**
 * A plan message's blocks as Slack holds them, its progress sections replaced by `lines`' where they stood;
 * undefined when it has none marked (posted before they were, or not under a policy file).
 */
export function withApprovalProgress<B extends { block_id?: string | undefined }>(blocks: readonly B[], lines: readonly string[]): (B | Block)[] | undefined {
  const marked = (block: B) => block.block_id?.startsWith(`${APPROVAL_PROGRESS_BLOCK}-`) === true;
  const at = blocks.findIndex(marked);
  if (at === -1) return undefined;
  const rest = blocks.filter((block) => !marked(block));
  return [...rest.slice(0, at), ...approvalProgressBlocks({ approvalProgress: lines }), ...rest.slice(at)];
}
