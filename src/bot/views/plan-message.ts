import type { ProposedPlan } from '../../agent/ports/surface.ts';
import type { Risk } from '../../agent/ports/tool.ts';
import { shortDigest } from '../../agent/plan-digest.ts';
import { encodePlanRef } from './button-values.ts';
import { fullPlanButton } from './full-plan-modal.ts';
import type { Block, MessageView } from './limits.ts';
import { lineSections, selectLines, splitIntoMessages, type ViewLine } from './message-split.ts';
import { planNotes } from './plan-notes.ts';
import { approvalProgressBlocks } from './approval-progress.ts';
import { RISK_BADGE, stepArgs, waitsFor } from './step-format.ts';
import { context, escapeText, header, mention, storedWords, truncate } from './text.ts';

export const PLAN_APPROVE_ACTION = 'plan-approve';
export const PLAN_MODIFY_ACTION = 'plan-modify';
export const PLAN_REJECT_ACTION = 'plan-reject';

/**
 * The plan as a person judges it: what it will do, how risky, how sure the planner is, how to undo
 * it. Every write and destructive step, forward and rollback, shows what it acts on in full, and
 * every change of such a target is listed; read steps and other changes give way when space runs
 * out. What does not fit one message continues in more, with the buttons after the last of it.
 */
export function planMessages(proposal: ProposedPlan): MessageView[] {
  const { plan, version, run } = proposal;
  const head: Block[] = [header(`Plan v${version}: ${plan.goal}`)];
  head.push(
    ...lineSections([`*Goal:* ${escapeText(plan.goal)}\n*Confidence:* ${Math.round(plan.confidence * 100)}%  ·  *Requested by* ${mention(run.requester)}`]),
  );
  if (version > 1 || proposal.authorKind !== 'planner') head.push(context(authorLine(proposal)));

  const body: Block[] = [];
  if (proposal.diff && proposal.diff.length > 0) {
    const lines = proposal.diff.map((line) => ({ text: `• ${escapeText(line.text)}`, keep: line.target }));
    body.push(...lineSections(['*What changed:*', ...selectLines(lines, 1500, (n) => `_…and ${n} more changes_`)]));
  }
  if (plan.steps.length > 0)
    body.push(...lineSections(selectLines(stepLines(proposal), 7000, (n) => `_…and ${n} more read steps (open *Modify* to see them all)_`)));
  if (plan.questions && plan.questions.length > 0) {
    const lines = plan.questions.map((q) => ({ text: `• ${escapeText(q)}`, keep: false }));
    body.push(...lineSections(['*Questions:*', ...selectLines(lines, 1200, (n) => `_…and ${n} more_`)]));
  }
  body.push(...rollbackSections(proposal));
  const destructive = [...plan.steps, ...plan.rollback].some((step) => riskOf(proposal, step.id) === 'destructive');
  if (destructive) body.push(context(':warning: Destructive steps (rollback steps included) need an approver other than the requester.'));
  body.push(...planNotes(proposal), ...approvalProgressBlocks(proposal));

  return splitIntoMessages({
    head,
    body,
    tail: tail(proposal),
    text: truncate(`Plan v${version}: ${escapeText(plan.goal)} (${plan.steps.length} steps)`, 300),
    continued: (index, count) => `Plan v${version}, continued (${index}/${count})`,
  });
}

/** An unknown step risk is shown as the worst, as the approval policy counts it. */
function riskOf(proposal: ProposedPlan, stepId: string): Risk {
  return proposal.risks[stepId] ?? 'destructive';
}

function stepLines(proposal: ProposedPlan): ViewLine[] {
  const { plan } = proposal;
  const numberOf = new Map(plan.steps.map((step, index) => [step.id, index + 1]));
  return plan.steps.map((step, index) => {
    const risk = riskOf(proposal, step.id);
    const after = step.dependsOn.length > 0 ? ` · after ${step.dependsOn.map((id) => numberOf.get(id) ?? escapeText(id)).join(', ')}` : '';
    const waiting = waitsFor(step.tool, step.args);
    const args = stepArgs(step.args, proposal.targets?.[step.id], risk);
    const expect = step.expect ? `\n      _expect: ${escapeText(truncate(step.expect, 120))}_` : '';
    const text = `*${index + 1}.* ${escapeText(truncate(step.title, 120))} — \`${escapeText(step.tool)}\`${args ? ` ${args}` : ''} · ${RISK_BADGE[risk]}${after}${waiting ? ` · ${waiting}` : ''}${expect}`;
    return { text, keep: risk !== 'read' };
  });
}

/** Rollback steps run when the plan is aborted; each is shown like a step, a write's targets in full. */
function rollbackSections(proposal: ProposedPlan): Block[] {
  const { rollback } = proposal.plan;
  if (rollback.length === 0) return [context(':leftwards_arrow_with_hook: No rollback steps: what this plan changes stays changed if it is aborted.')];
  const lines = rollback.map((step) => {
    const risk = riskOf(proposal, step.id);
    const args = stepArgs(step.args, proposal.targets?.[step.id], risk);
    const undoes = step.undoes ? ` · undoes ${escapeText(step.undoes)}` : '';
    return {
      text: `• ${escapeText(truncate(step.title, 120))} — \`${escapeText(step.tool)}\`${args ? ` ${args}` : ''} · ${RISK_BADGE[risk]}${undoes}`,
      keep: risk !== 'read',
    };
  });
  const heading = `:leftwards_arrow_with_hook: *Rollback (${rollback.length})*, run if the plan is aborted:`;
  return lineSections([heading, ...selectLines(lines, 1500, (n) => `_…and ${n} more read steps_`)]);
}

function tail(proposal: ProposedPlan): Block[] {
  const { plan, version, run } = proposal;
  if (proposal.autoApproved) {
    const runbook = proposal.approvedBy?.startsWith('runbook:') ? proposal.approvedBy.slice('runbook:'.length) : undefined;
    return [
      context(
        runbook
          ? `:zap: Scheduled run of runbook \`${escapeText(runbook)}\`, pre-approved for read-only steps: running without a click.`
          : ':zap: Read-only plan: running without approval.',
      ),
    ];
  }
  if (plan.steps.length === 0) return [];
  const value = encodePlanRef({ runId: run.id, planVersion: version, ...(proposal.digest ? { digest: shortDigest(proposal.digest) } : {}) });
  return [
    {
      type: 'actions',
      block_id: `plan-actions-${version}`,
      elements: [
        { type: 'button', text: { type: 'plain_text', text: 'Approve' }, style: 'primary', action_id: PLAN_APPROVE_ACTION, value },
        { type: 'button', text: { type: 'plain_text', text: 'Modify' }, action_id: PLAN_MODIFY_ACTION, value },
        { type: 'button', text: { type: 'plain_text', text: 'Reject' }, style: 'danger', action_id: PLAN_REJECT_ACTION, value },
        fullPlanButton(value),
      ],
    },
  ];
}

function authorLine(proposal: ProposedPlan): string {
  const by =
    proposal.authorKind === 'human'
      ? mention(proposal.authorId)
      : proposal.authorKind === 'runbook'
        ? `runbook \`${escapeText(proposal.authorId)}\``
        : `the planner (${escapeText(proposal.authorId)})`;
  const reason = proposal.reason ? ` — ${storedWords(proposal.reason, 300)}` : '';
  return `Version ${proposal.version} by ${by}${reason}`;
}
