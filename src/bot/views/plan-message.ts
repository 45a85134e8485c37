import type { ProposedPlan } from '../../agent/ports/surface.ts';
import { encodePlanRef } from './button-values.ts';
import type { Block, MessageView } from './limits.ts';
import { keyArgs, RISK_BADGE, waitsFor } from './step-format.ts';
import { context, escapeText, header, mention, packLines, section, truncate } from './text.ts';

export const PLAN_APPROVE_ACTION = 'plan-approve';
export const PLAN_MODIFY_ACTION = 'plan-modify';
export const PLAN_REJECT_ACTION = 'plan-reject';

/** The plan as a person judges it: what it will do, how risky, how sure the planner is, how to undo it. */
export function planMessage(proposal: ProposedPlan): MessageView {
  const { plan, version, run } = proposal;
  const numberOf = new Map(plan.steps.map((step, index) => [step.id, index + 1]));
  const stepLines = plan.steps.map((step, index) => {
    const risk = RISK_BADGE[proposal.risks[step.id] ?? 'write'];
    const after = step.dependsOn.length > 0 ? ` · after ${step.dependsOn.map((id) => numberOf.get(id) ?? escapeText(id)).join(', ')}` : '';
    const waiting = waitsFor(step.tool, step.args);
    const waits = `${after}${waiting ? ` · ${waiting}` : ''}`;
    const args = keyArgs(step.args);
    const expect = step.expect ? `\n      _expect: ${escapeText(truncate(step.expect, 120))}_` : '';
    return `*${index + 1}.* ${escapeText(truncate(step.title, 120))} — \`${escapeText(step.tool)}\`${args ? ` ${args}` : ''} · ${risk}${waits}${expect}`;
  });

  const blocks: Block[] = [header(`Plan v${version}: ${plan.goal}`)];
  blocks.push(section(`*Goal:* ${escapeText(plan.goal)}\n*Confidence:* ${Math.round(plan.confidence * 100)}%  ·  *Requested by* ${mention(run.requester)}`));
  if (version > 1 || proposal.authorKind !== 'planner') blocks.push(context(authorLine(proposal)));
  if (proposal.diff && proposal.diff.length > 0) {
    blocks.push(...packLines(['*What changed:*', ...proposal.diff.map((line) => `• ${escapeText(line)}`)], { maxBlocks: 3, maxChars: 1500 }, (n) => `_…and ${n} more changes_`));
  }
  if (plan.steps.length > 0) {
    blocks.push(...packLines(stepLines, { maxBlocks: 30, maxChars: 7000 }, (n) => `_…and ${n} more steps (open *Modify* to see them all)_`));
  }
  if (plan.questions && plan.questions.length > 0) {
    blocks.push(...packLines(['*Questions:*', ...plan.questions.map((q) => `• ${escapeText(q)}`)], { maxBlocks: 2, maxChars: 1200 }, (n) => `_…and ${n} more_`));
  }
  blocks.push(context(rollbackLine(plan.rollback.map((step) => step.title))));
  const destructive = plan.steps.some((step) => proposal.risks[step.id] === 'destructive');
  if (destructive) blocks.push(context(':warning: Destructive steps need an approver other than the requester.'));

  if (proposal.autoApproved) {
    const runbook = proposal.approvedBy?.startsWith('runbook:') ? proposal.approvedBy.slice('runbook:'.length) : undefined;
    blocks.push(context(runbook ? `:zap: Scheduled run of runbook \`${escapeText(runbook)}\`, pre-approved for read-only steps: running without a click.` : ':zap: Read-only plan: running without approval.'));
  } else if (plan.steps.length > 0) {
    const value = encodePlanRef({ runId: run.id, planVersion: version });
    blocks.push({
      type: 'actions',
      block_id: `plan-actions-${version}`,
      elements: [
        { type: 'button', text: { type: 'plain_text', text: 'Approve' }, style: 'primary', action_id: PLAN_APPROVE_ACTION, value },
        { type: 'button', text: { type: 'plain_text', text: 'Modify' }, action_id: PLAN_MODIFY_ACTION, value },
        { type: 'button', text: { type: 'plain_text', text: 'Reject' }, style: 'danger', action_id: PLAN_REJECT_ACTION, value },
      ],
    });
  }
  return { text: truncate(`Plan v${version}: ${plan.goal} (${plan.steps.length} steps)`, 300), blocks };
}

function authorLine(proposal: ProposedPlan): string {
  const by = proposal.authorKind === 'human' ? mention(proposal.authorId) : proposal.authorKind === 'runbook' ? `runbook \`${escapeText(proposal.authorId)}\`` : `the planner (${escapeText(proposal.authorId)})`;
  const reason = proposal.reason ? ` — ${escapeText(truncate(proposal.reason, 300))}` : '';
  return `Version ${proposal.version} by ${by}${reason}`;
}

function rollbackLine(titles: string[]): string {
  if (titles.length === 0) return ':leftwards_arrow_with_hook: No rollback steps: what this plan changes stays changed if it is aborted.';
  const shown = titles.slice(0, 5).map((t) => escapeText(truncate(t, 80))).join('; ');
  const more = titles.length > 5 ? `; +${titles.length - 5} more` : '';
  return `:leftwards_arrow_with_hook: Rollback (${titles.length}): ${shown}${more}`;
}
