/**
 * The lines a plan message adds so the approver knows what they bind to: what its Slack messages will
 * do to readers (plan-flags.ts), the version's short digest, that every argument is in the full view,
 * and that Tandem stamps its GitHub writes with an attribution line after approval.
 */
import type { ProposedPlan } from '../../../agent/ports/surface.ts';
import { shortDigest } from '../../../agent/model/plan/plan-digest.ts';
import type { Block } from '../limits.ts';
import { lineSections } from '../message-split.ts';
import { planFlags } from './plan-flags.ts';
import { context, escapeText } from '../text.ts';

export function planNotes(proposal: ProposedPlan): Block[] {
  const blocks: Block[] = [];
  const flagged = planFlags(proposal.plan);
  if (flagged.length > 0)
    blocks.push(
      ...lineSections([
        ':rotating_light: *Readers will see more than this plan shows:*',
        ...flagged.map((step) => `• ${escapeText(step.where)}: ${escapeText(step.flags.join('; '))}`),
      ]),
    );
  const facts: string[] = [];
  if (proposal.digest) facts.push(`Digest \`${shortDigest(proposal.digest)}\``);
  if (!proposal.autoApproved && proposal.plan.steps.length > 0) facts.push('*View full plan* shows every argument exactly as it will be sent');
  if (proposal.attribution && writesToGitHub(proposal))
    facts.push('adds an attribution line (who asked, who approved, this version and digest) to what it writes on GitHub');
  if (facts.length > 0) blocks.push(context(facts.join('  ·  ')));
  return blocks;
}

function writesToGitHub(proposal: ProposedPlan): boolean {
  return [...proposal.plan.steps, ...proposal.plan.rollback].some((step) => ATTRIBUTED_TOOLS.has(step.tool));
}

/** The tools whose GitHub writes carry the attribution line or merge trailers. */
const ATTRIBUTED_TOOLS = new Set(['github_comment', 'github_create_issue', 'github_create_release', 'github_merge_pull']);
