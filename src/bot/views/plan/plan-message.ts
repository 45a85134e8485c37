import type { NotCovered, PlanStep } from '../../../agent/model/plan/plan.ts';
import type { ProposedPlan } from '../../../agent/ports/surface.ts';
import type { Risk } from '../../../agent/ports/tool.ts';
import { shortDigest } from '../../../agent/model/plan/plan-digest.ts';
import { encodePlanRef } from '../button-values.ts';
import { fullPlanButton } from './full-plan-modal.ts';
import { reassignButton } from '../run/reassign.ts';
import type { Block, MessageView } from '../limits.ts';
import { lineSections, selectLines, splitIntoMessages, type ViewLine } from '../message-split.ts';
import { planNotes } from './plan-notes.ts';
import { versionReasonWords } from './version-reason.ts';
import { approvalProgressBlocks } from './approval-progress.ts';
import { RISK_BADGE, stepSentence, stepTarget, waitsFor } from './step-format.ts';
import { context, escapeText, header, mention, section, storedWords, truncate } from '../text.ts';

export const PLAN_APPROVE_ACTION = 'plan-approve';
export const PLAN_MODIFY_ACTION = 'plan-modify';
export const PLAN_REJECT_ACTION = 'plan-reject';

/** Below this the plan says the planner is unsure (TANDEM_CONFIDENCE_THRESHOLD's default); above it, confidence is not shown. */
export const DEFAULT_CONFIDENCE_THRESHOLD = 0.6;

export interface PlanMessageOptions {
  /** The confidence below which the plan says the planner is unsure. */
  confidenceThreshold?: number;
  /** Who may approve (users `U…` and groups `S…`); empty or absent: anyone in the channel, and the plan does not say. */
  approvers?: readonly string[];
}

/**
 * The plan as a person judges it: what it will do, in sentences with what each step acts on in bold,
 * how risky, with which tool, in what order, and how to undo it. Every argument is in the full view
 * (View full plan). Every write and destructive step, forward and rollback, shows what it acts on in
 * full, and every change of such a target is listed; read steps and other changes give way when space
 * runs out. What does not fit one message continues in more, with the buttons after the last of it.
 */
export function planMessages(proposal: ProposedPlan, options: PlanMessageOptions = {}): MessageView[] {
  const { plan, version } = proposal;
  const threshold = options.confidenceThreshold ?? DEFAULT_CONFIDENCE_THRESHOLD;
  // CONTRACT §5: the plan shows its confidence; below the threshold it also says to read closely.
  const confidence = `confidence ${Math.round(plan.confidence * 100)}%`;
  const head: Block[] = [header(plan.goal), context(`${authorLine(proposal)} · ${confidence}`)];
  if (plan.confidence < threshold)
    head.push(
      context(
        `:thinking_face: The planner is not sure this plan does what was asked (confidence ${Math.round(plan.confidence * 100)}%). Read it closely before approving.`,
      ),
    );

  const body: Block[] = [];
  if (proposal.diff && proposal.diff.length > 0) {
    const lines = proposal.diff.map((line) => ({ text: `• ${escapeText(line.text)}`, keep: line.target }));
    body.push(...lineSections(['*What changed:*', ...selectLines(lines, 1500, (n) => `_…and ${n} more changes_`)]));
  }
  if (plan.steps.length > 0)
    body.push(...lineSections(selectLines(stepLines(proposal), 7000, (n) => `_…and ${n} more read steps (*View full plan* shows them all)_`)));
  body.push(...notCoveredSections(plan.notCovered ?? []));
  if (plan.questions && plan.questions.length > 0) {
    const lines = plan.questions.map((q) => ({ text: `• ${escapeText(q)}`, keep: false }));
    body.push(...lineSections(['*Questions:*', ...selectLines(lines, 1200, (n) => `_…and ${n} more_`)]));
  }
  body.push(...rollbackSections(proposal));
  const destructive = [...plan.steps, ...plan.rollback].some((step) => riskOf(proposal, step.id) === 'destructive');
  if (destructive) body.push(context(':warning: Destructive steps (rollback steps included) need an approver other than the requester.'));
  body.push(...planNotes(proposal));
  // Under TANDEM_POLICY the policy says who can approve which steps; otherwise the approvers list does.
  const progress = approvalProgressBlocks(proposal);
  if (progress.length) body.push(...progress);
  else {
    const who = whoCanApprove(proposal, options.approvers ?? [], destructive);
    if (who) body.push(context(who));
  }

  return splitIntoMessages({
    head,
    body,
    tail: tail(proposal),
    text: truncate(`Plan v${version}: ${escapeText(plan.goal)}`, 300),
    continued: (index, count) => `Plan v${version}, continued (${index}/${count})`,
  });
}

/** The approvers by name, when not everyone may approve (a plan that runs without a click needs nobody). */
function whoCanApprove(proposal: ProposedPlan, approvers: readonly string[], destructive: boolean): string | undefined {
  if (approvers.length === 0 || proposal.autoApproved || proposal.plan.steps.length === 0) return undefined;
  const shown = approvers.slice(0, 20).map((id) => mention(escapeText(id)));
  const more = approvers.length > 20 ? ` and ${approvers.length - 20} more` : '';
  const notRequester = destructive ? `, other than ${mention(proposal.run.requester)} who asked` : '';
  return `:bust_in_silhouette: Who can approve: ${shown.join(', ')}${more}${notRequester}.`;
}

/** An unknown step risk is shown as the worst, as the approval policy counts it. */
function riskOf(proposal: ProposedPlan, stepId: string): Risk {
  return proposal.risks[stepId] ?? 'destructive';
}

function sentenceOf(proposal: ProposedPlan, step: Pick<PlanStep, 'id' | 'title' | 'args'>): { text: string; risk: Risk } {
  const risk = riskOf(proposal, step.id);
  return { text: stepSentence(step.title, stepTarget(step.args, proposal.targets?.[step.id], risk)), risk };
}

function stepLines(proposal: ProposedPlan): ViewLine[] {
  const { plan } = proposal;
  const byId = new Map(plan.steps.map((step) => [step.id, step]));
  return plan.steps.map((step, index) => {
    const { text: sentence, risk } = sentenceOf(proposal, step);
    // CONTRACT §5: each step shows its tool (its every argument is in View full plan).
    const facts = [RISK_BADGE[risk], `\`${escapeText(step.tool)}\``];
    if (step.dependsOn.length > 0) facts.push(`after ${step.dependsOn.map((id) => afterWords(byId.get(id))).join(' and ')}`);
    facts.push(waitsFor(step.tool, step.args) ?? '');
    const shown = facts.filter(Boolean);
    const expect = step.expect ? `\n      _expects: ${escapeText(truncate(step.expect, 120))}_` : '';
    return { text: `*${index + 1}.* ${sentence}${shown.length > 0 ? `  ·  ${shown.join(' · ')}` : ''}${expect}`, keep: risk !== 'read' };
  });
}

/** A dependency in words: the step it waits for, by its title. */
function afterWords(step: PlanStep | undefined): string {
  if (!step) return 'an earlier step';
  return `“${escapeText(truncate(step.title.trim(), 80))}”`;
}

/**
 * The parts of the request the plan does not do, said where the approver reads the plan ("Not covered:
 * clean up acme/api — no tool for it"), so approving it is not mistaken for getting all of it done.
 */
function notCoveredSections(parts: readonly NotCovered[]): Block[] {
  if (parts.length === 0) return [];
  const line = (gap: NotCovered) => `${escapeText(truncate(gap.part, 200))}${gap.reason ? ` — ${escapeText(truncate(gap.reason, 200))}` : ''}`;
  if (parts.length === 1) return [section(`:heavy_minus_sign: *Not covered:* ${line(parts[0]!)}`)];
  const lines = parts.map((gap) => ({ text: `• ${line(gap)}`, keep: true }));
  return lineSections([':heavy_minus_sign: *Not covered:*', ...selectLines(lines, 2000, (n) => `_…and ${n} more_`)]);
}

/** Rollback steps run when the plan is aborted; each is a sentence like a step, a write's targets in full. */
function rollbackSections(proposal: ProposedPlan): Block[] {
  const { rollback, steps } = proposal.plan;
  if (rollback.length === 0) {
    const changes = steps.some((step) => riskOf(proposal, step.id) !== 'read');
    return changes ? [context(':leftwards_arrow_with_hook: Nothing undoes this plan: what it changes stays changed if it is aborted.')] : [];
  }
  const numberOf = new Map(steps.map((step, index) => [step.id, index + 1]));
  const lines = rollback.map((step) => {
    const { text: sentence, risk } = sentenceOf(proposal, step);
    const undone = step.undoes ? numberOf.get(step.undoes) : undefined;
    const facts = [RISK_BADGE[risk], `\`${escapeText(step.tool)}\``, undone ? `undoes step ${undone}` : ''].filter(Boolean);
    return { text: `• ${sentence}${facts.length > 0 ? `  ·  ${facts.join(' · ')}` : ''}`, keep: risk !== 'read' };
  });
  const heading = ':leftwards_arrow_with_hook: *If the plan is aborted*, these undo what it did:';
  return lineSections([heading, ...selectLines(lines, 1500, (n) => `_…and ${n} more read steps_`)]);
}

function tail(proposal: ProposedPlan): Block[] {
  const { plan, version, run } = proposal;
  if (proposal.autoApproved) {
    const runbook = proposal.approvedBy?.startsWith('runbook:') ? proposal.approvedBy.slice('runbook:'.length) : undefined;
    return [
      context(
        runbook
          ? `:zap: Scheduled run of runbook *${escapeText(runbook)}*, pre-approved for read-only steps: running without a click.`
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
        reassignButton({ kind: 'approval', runId: run.id, planVersion: version }),
      ],
    },
  ];
}

/**
 * Who asked and where this version comes from, each said once: "Plan v2 · edited by @x", "Plan from
 * runbook *check-health*", "Plan v3 — replan: …". The planner's model is not named (it is in `tandem show`).
 */
function authorLine(proposal: ProposedPlan): string {
  const { version, run } = proposal;
  const name = version > 1 ? `Plan v${version}` : 'Plan';
  const asked = `requested by ${mention(run.requester)}`;
  if (proposal.authorKind === 'runbook') return `${name} from runbook *${escapeText(proposal.authorId)}*  ·  ${asked}`;
  if (proposal.authorKind === 'human') return `${name}, edited by ${mention(proposal.authorId)}  ·  ${asked}`;
  const reason = proposal.reason && version > 1 ? ` — ${storedWords(versionReasonWords(proposal.reason), 300)}` : '';
  return `${name}${reason}  ·  ${asked}`;
}
