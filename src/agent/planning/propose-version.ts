/**
 * A new plan version was stored: ask the requester its questions, escalate low confidence, run it
 * without a click when policy allows, or wait for approval.
 */
import { approvalNeed, approvalProgressLines, needsReapproval, planRisk, riskOfTool } from '../decisions/approval-policy.ts';
import { policyAutoRunGrant } from '../decisions/version-permission.ts';
import type { AutoRunGrant } from '../decisions/auto-run-grant.ts';
import type { AgentContext } from '../context.ts';
import { escalate } from '../execution/escalation.ts';
import { diffPlans } from '../model/plan/plan-diff.ts';
import { planDigest } from '../model/plan/plan-digest.ts';
import type { PlanVersionRecord, RunRecord, RunStatus } from '../ports/run-store.ts';
import type { Risk } from '../ports/tool.ts';
import { targetArgNames } from '../model/step-targets.ts';
import { words } from '../text/text.ts';
import { confidenceTooLow } from '../model/budgets.ts';
import { drive, type Effect } from '../ports/effects.ts';
import { owedPlanQuestions } from '../delivery/owed-delivery.ts';

export const AUTO_APPROVER = 'tandem:auto';

export interface ProposeOptions {
  /** The run's status now (the transition starts from it). */
  from: readonly RunStatus[];
  /** A replan after failure may continue without a click when it adds no write step. */
  kind: 'first' | 'replan' | 'revision' | 'edit';
  /** "runbook:<name>": a scheduled run's runbook is pre-approved; a read-only plan runs, approved by it. */
  preApprovedBy?: string;
}

/**
 * Offers a version added with `proposed` (so it is current and `plan-proposed` is recorded): approved at once where
 * the policy allows, else shown for a click. Returns what should happen next: a version that runs without a click is
 * driven, by the caller's wiring while it still holds the run's lease (decision 043).
 */
export async function proposeVersion(ctx: AgentContext, record: PlanVersionRecord, options: ProposeOptions): Promise<Effect[]> {
  const { runId, plan, version } = record;
  const risks: Record<string, Risk> = {};
  const targets: Record<string, string[]> = {};
  for (const step of [...plan.steps, ...plan.rollback]) {
    risks[step.id] = riskOfTool(ctx.config.tools, step.tool);
    targets[step.id] = targetArgNames(ctx.config.tools.get(step.tool), step.args);
  }

  if (plan.steps.length === 0 && plan.questions?.length) {
    if (!(await ctx.store.transitionRun(runId, options.from, 'awaiting-answer'))) return []; // cancelled meanwhile
    // Stored with the message it owes the thread, in one write: a write whose answer was lost, or a process that
    // stopped after it, still has the question asked once (contract §6). Proposed again (a restart carrying on an
    // interrupted change), the version's open question stands and nothing new is asked.
    try {
      if (!(await askedAlready(ctx, runId, version))) {
        const question = plan.questions.join('\n');
        await ctx.store.openQuestion({ runId, stepId: null, planVersion: version, question }, owedPlanQuestions(ctx, plan.questions));
        await ctx.store.appendEvent(runId, 'questions-asked', { version, questions: plan.questions });
      }
    } finally {
      // Also when the write threw: its commit may have applied, and what it owes is then delivered now, not a lease later.
      // A delivery that fails stays owed, and the pump's sweep sends it.
      await ctx.thread.owed.deliver(runId).catch((error: unknown) => ctx.logger.warn({ err: error, runId }, 'could not deliver the plan’s questions yet'));
    }
    return [];
  }

  const risk = planRisk(plan, ctx.config.tools.riskOf);
  const lowConfidence = confidenceTooLow(plan.confidence, ctx.config.settings.confidenceThreshold);
  const machineAuthored = options.kind === 'first' || options.kind === 'replan';
  const preApproved = options.preApprovedBy !== undefined && risk === 'read';
  /** Set when the policy's `auto_run` lets this version run without a click: recorded with the approval for the audit. */
  let grant: AutoRunGrant | undefined;
  const autoRunAllowed = async () => {
    const run = await ctx.store.getRun(runId);
    grant =
      run &&
      (await policyAutoRunGrant({ gate: ctx.config.policy, run, version: { version, plan }, digest: await planDigest(plan), riskOf: ctx.config.tools.riskOf }));
    return grant !== undefined;
  };
  const auto = !lowConfidence && machineAuthored && (preApproved || (await autoRunAllowed()) || (options.kind === 'replan' && !needsReapproval(risk)));
  const approver = preApproved && options.preApprovedBy ? options.preApprovedBy : AUTO_APPROVER;
  const parent = record.parentVersion ? await ctx.store.getPlanVersion(runId, record.parentVersion) : undefined;
  const diff = parent
    ? diffPlans(parent.plan, plan, (step) => (ctx.config.tools.riskOf(step.tool) === 'read' ? [] : targetArgNames(ctx.config.tools.get(step.tool), step.args)))
    : null;

  const digest = await planDigest(plan);
  /** The run as the approval left it (an auto-approval returns it; a wait for a person reads it). */
  let moved: RunRecord | undefined;
  if (auto) {
    // Recorded as a fact of its own (via 'auto', and the rule) so the audit tells it apart from a person's click.
    // A version that changes things runs without a click only by a policy rule: the rule is the approval's reason.
    const byPolicy = !preApproved && risk !== 'read' && grant !== undefined ? grant : undefined;
    const why = preApproved
      ? 'scheduled run of a runbook pre-approved for read-only steps'
      : byPolicy
        ? `policy ${byPolicy.policyHash.slice(0, 12)} lets it run without a click: ${byPolicy.rules.join(', ')}`
        : options.kind === 'replan'
          ? 'replan without write steps'
          : 'read-only plan';
    const granted = byPolicy ? { policyHash: byPolicy.policyHash, policyRules: byPolicy.rules, policyGroups: byPolicy.groups } : {};
    const decided = await ctx.store.decide({
      runId,
      planVersion: version,
      from: options.from,
      to: 'executing',
      approval: { userId: approver, decision: 'approved', via: 'auto', need: approvalNeed(risk), why, digest, ...granted },
      event: { type: 'plan-approved', data: { version, by: approver, why } },
    });
    if (!decided.ok) return [];
    moved = decided.run;
  } else if (!(await ctx.store.transitionRun(runId, options.from, 'awaiting-approval'))) return [];

  const run = moved ?? (await ctx.store.getRun(runId));
  if (!run) return [];
  await ctx.thread.surface.proposePlan({
    run,
    version,
    plan,
    authorKind: record.authorKind,
    authorId: record.authorId,
    risks,
    targets,
    diff,
    reason: record.reason,
    autoApproved: auto,
    ...(auto ? { approvedBy: approver } : {}),
    ...(!ctx.config.policy.current().fromSettings && !auto
      ? { approvalProgress: approvalProgressLines(ctx.config.policy, run, { version, plan }, digest, ctx.config.tools.riskOf) }
      : {}),
    digest,
    attribution: ctx.config.settings.attribution !== false,
  });
  // The board of the version this one replaces says so, instead of staying "waiting for a person".
  if (options.kind === 'replan' && !auto) await ctx.thread.boards.changed(runId, run);
  if (lowConfidence) {
    await escalate(ctx, {
      runId,
      planVersion: version,
      stepId: null,
      kind: 'low-confidence',
      message: words`Not acting on my own: ${lowConfidence}.`,
      pauseFrom: [], // stays awaiting approval: an approver's click is the human decision asked for
    });
  }
  return auto ? [drive(runId)] : [];
}

/** The version's own questions are open already: asked by an earlier proposal of it. */
async function askedAlready(ctx: Pick<AgentContext, 'store'>, runId: string, version: number): Promise<boolean> {
  const open = await ctx.store.listQuestions(runId);
  return open.some((q) => q.planVersion === version && q.stepId === null && q.answeredAt === null);
}
