/** A person's decisions on a proposed plan: approve, reject, edit, or ask the planner to revise it. */
import {
  approvalNeed,
  checkPolicyApprover,
  policyVersionApproved,
  checkRequesterOrApprover,
  checkVersion,
  goAheadApproval,
  planRisk,
  type ApprovalNeed,
} from './approval-policy.ts';
import type { PolicyGate } from './policy-approval.ts';
import { canonicalJson } from '../text/canonical-json.ts';
import type { AgentContext } from '../context.ts';
import type { Result } from '../model/errors.ts';
import { problemWords, type PlanProblem } from '../model/plan/plan-problems.ts';
import { validatePlan } from '../model/plan/plan-validation.ts';
import { planDigest } from '../model/plan/plan-digest.ts';
import { makePlan } from '../planning/planner.ts';
import { addPlannedVersion, plannerDeps } from '../planning/plan-run.ts';
import { decisionRefusal, shownDigestRefusal } from './decision-refusals.ts';
import type { DecisionInput, DecisionRefusalCode, PlanVersionRecord, RunRecord } from '../ports/run-store.ts';
import { proposeVersion } from '../planning/propose-version.ts';
import { refuse, type EditProblem, type PlanDecisionRefusalCode, type Refused, type RevisionRefusalCode } from '../model/refusal.ts';
import { summarizeEnded } from '../execution/run-ending.ts';
import { completedStepIds } from '../execution/steps/step-facts.ts';
import { person, type Text, words } from '../text/text.ts';
import { openEscalationsOf, tellEscalationsClosed } from '../waits/closed-escalations.ts';
import { decided, drive, tellClosed, type Decided, type Effect } from '../ports/effects.ts';
import { reopenDoubts } from '../waits/revise-failed.ts';
import { showPartialApproval } from './recorded-progress.ts';
import { planExpiredRefusal } from './closed-wait-refusal.ts';

type Loaded = { run: RunRecord; version: PlanVersionRecord };
export type { EditProblem, PlanDecisionRefusalCode, RevisionRefusalCode } from '../model/refusal.ts';

/**
 * What the person clicked on, read before the slow approver lookup. Nothing here is acted on: the
 * decision itself re-checks status and version in the store's transaction.
 */
async function loadPending(
  ctx: Pick<AgentContext, 'store'>,
  runId: string,
  planVersion: number,
): Promise<Refused<Loaded, DecisionRefusalCode | 'version-missing'>> {
  const run = await ctx.store.getRun(runId);
  if (!run) return { ok: false, error: decisionRefusal('run-missing', undefined, planVersion) };
  const current = checkVersion(run, planVersion);
  if (!current.ok) return current;
  if (run.status !== 'awaiting-approval') return { ok: false, error: decisionRefusal('not-waiting', run, planVersion) };
  const version = await ctx.store.getPlanVersion(runId, planVersion);
  if (!version) return refuse('version-missing', 'That plan version does not exist.');
  return { ok: true, value: { run, version } };
}

/** The compare-and-set every decision on a proposed plan goes through: still awaiting approval, still this version. */
async function decideOnPending(
  ctx: Pick<AgentContext, 'store'>,
  input: { runId: string; planVersion: number },
  facts: Omit<DecisionInput, 'runId' | 'planVersion' | 'from'>,
): Promise<Refused<RunRecord, DecisionRefusalCode>> {
  const decided = await ctx.store.decide({ runId: input.runId, planVersion: input.planVersion, from: ['awaiting-approval'], ...facts });
  return decided.ok ? { ok: true, value: decided.run } : { ok: false, error: decisionRefusal(decided.code, decided.run, input.planVersion) };
}

type PlanDecision = Refused<void, PlanDecisionRefusalCode, Text>;

/** An Approve or Reject click, and what should happen next (an approved run is driven), for the wiring to perform under the lease it holds. */
export async function decide(
  ctx: AgentContext,
  input: { runId: string; planVersion: number; userId: string; decision: 'approve' | 'reject'; digest?: string | undefined },
): Promise<Decided<PlanDecision>> {
  const loaded = await loadPending(ctx, input.runId, input.planVersion);
  if (!loaded.ok) return decided(loaded);
  const { run, version } = loaded.value;
  // The approval binds to the content the clicked message showed: a button drawn for other content is a stale one.
  const digest = await planDigest(version.plan);
  const stale = input.decision === 'approve' ? shownDigestRefusal(input.digest, digest, version.version) : undefined;
  if (stale) return decided({ ok: false, error: stale });
  const need = approvalNeed(planRisk(version.plan, ctx.config.tools.riskOf));
  if (input.decision === 'approve') return decideApproval(ctx, ctx.config.policy, { ...input, run, version, digest, need });
  // The slow part (a Slack user-group lookup) comes first; its verdict is for this version only.
  const allowed = await checkRequesterOrApprover({ action: 'reject', userId: input.userId, policy: { gate: ctx.config.policy, run } });
  if (!allowed.ok) return decided(allowed);
  const doubting = await openEscalationsOf(ctx, run.id, 'low-confidence');
  const rejected = await decideOnPending(ctx, input, {
    to: 'rejected',
    approval: { userId: input.userId, decision: 'rejected', need },
    alsoResolve: { kind: 'low-confidence', action: 'abort', userId: input.userId },
    event: { type: 'plan-rejected', data: { version: input.planVersion, by: input.userId } },
  });
  if (!rejected.ok) return decided(rejected);
  await tellEscalationsClosed(ctx, rejected.value, doubting, words`the plan was rejected by ${person(input.userId)}.`);
  await summarizeEnded(ctx, run.id, 'rejected', words`Rejected by ${person(input.userId)}.`);
  return decided({ ok: true, value: undefined });
}

/**
 * An approval click, asked of the policy in force (decision 028): the click counts when the policy permits
 * the clicker some step not yet approved; the run goes ahead once every step has what its rule needs. A
 * click that completes the version is recorded and moves the run on in one decision; a partial approval is
 * recorded with the run still waiting, and whoever records the last needed approval moves it on (each click
 * reads the approvals after writing its own, so the last writer always sees them all).
 */
async function decideApproval(
  ctx: AgentContext,
  gate: PolicyGate,
  input: { runId: string; planVersion: number; userId: string; run: RunRecord; version: PlanVersionRecord; digest: string; need: ApprovalNeed },
): Promise<Decided<PlanDecision>> {
  const ask = async () =>
    checkPolicyApprover({
      gate,
      userId: input.userId,
      run: input.run,
      version: input.version,
      digest: input.digest,
      riskOf: ctx.config.tools.riskOf,
      earlier: await ctx.store.listApprovals(input.runId),
    });
  const allowed = await ask();
  if (!allowed.ok) return decided(allowed);
  const by = { version: input.planVersion, by: input.userId, why: `policy ${allowed.value.policyHash.slice(0, 12)}: ${allowed.value.rules.join(', ')}` };
  const approval = { userId: input.userId, decision: 'approved' as const, ...goAheadApproval(input.need, allowed.value), digest: input.digest };
  const doubting = await openEscalationsOf(ctx, input.runId, 'low-confidence');
  const approvedBy = words`the plan was approved by ${person(input.userId)}.`;
  // The run is driven first, then the closed low-confidence escalations are told: the run does not wait on that Slack edit.
  const goes = (run: RunRecord): Effect[] => [drive(input.runId), tellClosed(run, doubting, approvedBy)];
  if (allowed.value.approved) {
    // The usual click (every step's rule needs one approver): approval and start are one decision.
    const approved = await decideOnPending(ctx, input, {
      to: 'executing',
      approval,
      alsoResolve: { kind: 'low-confidence', action: 'skip', userId: input.userId },
      event: { type: 'plan-approved', data: by },
    });
    return approved.ok ? decided({ ok: true, value: undefined }, goes(approved.value)) : decided(approved);
  }
  const recorded = await decideOnPending(ctx, input, { approval, event: { type: 'plan-approved', data: by } });
  if (!recorded.ok) return decided(recorded);
  const approvals = await ctx.store.listApprovals(input.runId);
  const now = await policyVersionApproved({
    gate,
    run: input.run,
    version: input.version,
    digest: input.digest,
    riskOf: ctx.config.tools.riskOf,
    approvals,
  });
  if (!now.ok) {
    await showPartialApproval(ctx, gate, input, approvals, now.error.message);
    // Recorded, but the plan still waits: not a final decision, so the buttons stay for the next approver and
    // the clicker is told privately what is still needed.
    return decided(refuse('approval-counted', `Your approval counts; the plan still needs: ${now.error.message}.`));
  }
  const moved = await decideOnPending(ctx, input, {
    to: 'executing',
    alsoResolve: { kind: 'low-confidence', action: 'skip', userId: input.userId },
    event: { type: 'plan-approved', data: { ...by, why: `policy ${gate.current().hash.slice(0, 12)}: every step approved` } },
  });
  return decided({ ok: true, value: undefined }, moved.ok ? goes(moved.value) : []);
}

/** A person's edit is checked like a replan: ids of steps that already ran may be read, not reused. */
async function validateEdit(ctx: Pick<AgentContext, 'config' | 'store'>, input: { runId: string; plan: unknown }) {
  const steps = await ctx.store.listSteps(input.runId);
  return validatePlan(input.plan, ctx.config.tools, {
    maxSteps: ctx.config.settings.budgets.maxSteps,
    repositories: ctx.config.settings.repositories,
    completedSteps: completedStepIds(steps),
  });
}

const editProblems = (problems: readonly PlanProblem[]): { ok: false; error: EditProblem[] } => ({
  ok: false,
  error: problems.map((problem) => ({ code: problem.code, message: problemWords(problem) })),
});

export async function checkEdit(ctx: AgentContext, input: { runId: string; planVersion: number; plan: unknown }): Promise<Result<void, EditProblem[]>> {
  const run = await ctx.store.getRun(input.runId);
  if (!run) return { ok: false, error: [{ code: 'run-missing', message: 'That run does not exist.' }] };
  const expired = await planExpiredRefusal(ctx, input);
  if (expired) return { ok: false, error: [expired] };
  const current = checkVersion(run, input.planVersion);
  if (!current.ok) return { ok: false, error: [current.error] };
  const checked = await validateEdit(ctx, input);
  return checked.ok ? { ok: true, value: undefined } : editProblems(checked.error);
}

/** A person's edit, stored and proposed as a new version; with what should happen next, for the wiring under the lease it holds. */
export async function editPlan(
  ctx: AgentContext,
  input: { runId: string; planVersion: number; userId: string; plan: unknown },
): Promise<Decided<Result<PlanVersionRecord, EditProblem[]>>> {
  const expired = await planExpiredRefusal(ctx, input);
  if (expired) return decided({ ok: false, error: [expired] });
  const loaded = await loadPending(ctx, input.runId, input.planVersion);
  if (!loaded.ok) {
    const made = await editAlreadyMade(ctx, input);
    return decided(made ? { ok: true, value: made } : { ok: false, error: [loaded.error] });
  }
  const { run } = loaded.value;
  const may = await checkRequesterOrApprover({ action: 'edit', userId: input.userId, policy: { gate: ctx.config.policy, run } });
  if (!may.ok) return decided({ ok: false, error: [may.error] });
  const checked = await validateEdit(ctx, input);
  if (!checked.ok) return decided(editProblems(checked.error));
  // From here the run is `planning`: no click on the version being replaced can approve it any more,
  // nor go ahead on it from its low-confidence escalation (closed here; the edit may open its own).
  const doubting = await openEscalationsOf(ctx, run.id, 'low-confidence');
  const started = await decideOnPending(ctx, input, {
    to: 'planning',
    alsoResolve: { kind: 'low-confidence', action: 'replan', userId: input.userId },
    event: { type: 'plan-edit-started', data: { version: input.planVersion, by: input.userId } },
  });
  if (!started.ok) return decided({ ok: false, error: [started.error] });
  await tellEscalationsClosed(ctx, started.value, doubting, words`the plan was modified by ${person(input.userId)}; the new version is below.`);
  const record = await ctx.store.addPlanVersion({
    runId: run.id,
    plan: checked.value,
    authorKind: 'human',
    authorId: input.userId,
    parentVersion: input.planVersion,
    reason: words`edited by ${person(input.userId)}`,
    proposed: {},
  });
  return decided({ ok: true, value: record }, await proposeVersion(ctx, record, { from: ['planning'], kind: 'edit' }));
}

/**
 * The current version when it is exactly this person's edit of this version: the same submission,
 * replayed after a stop that came once the edit was stored (the next process proposed it). The person is
 * told it was saved, not that the plan changed under them.
 */
async function editAlreadyMade(
  ctx: AgentContext,
  input: { runId: string; planVersion: number; userId: string; plan: unknown },
): Promise<PlanVersionRecord | undefined> {
  const run = await ctx.store.getRun(input.runId);
  if (run?.currentPlanVersion == null || run.currentPlanVersion === input.planVersion) return undefined;
  const current = await ctx.store.getPlanVersion(run.id, run.currentPlanVersion);
  if (current?.authorKind !== 'human' || current.authorId !== input.userId || current.parentVersion !== input.planVersion) return undefined;
  const checked = await validateEdit(ctx, input);
  return checked.ok && canonicalJson(checked.value) === canonicalJson(current.plan) ? current : undefined;
}

/**
 * Accepted at once; the planner works in the background and the revision is proposed as a new version. The work
 * resolves with what should happen next, for the wiring to perform before it lets go of the run's lease.
 */
export async function revisePlan(
  ctx: AgentContext,
  input: { runId: string; planVersion: number; userId: string; instruction: string },
): Promise<Refused<{ work: Promise<Effect[]> }, RevisionRefusalCode, Text>> {
  const expired = await planExpiredRefusal(ctx, input);
  if (expired) return { ok: false, error: expired };
  const loaded = await loadPending(ctx, input.runId, input.planVersion);
  if (!loaded.ok) return loaded;
  const { run, version } = loaded.value;
  const may = await checkRequesterOrApprover({ action: 'revise', userId: input.userId, policy: { gate: ctx.config.policy, run } });
  if (!may.ok) return may;
  if (!ctx.models.llm.has('planner')) return refuse('no-planner', 'No planner model is configured, so I cannot revise the plan; edit the steps instead.');
  const doubting = await openEscalationsOf(ctx, run.id, 'low-confidence');
  const asked = await decideOnPending(ctx, input, {
    to: 'planning',
    alsoResolve: { kind: 'low-confidence', action: 'replan', userId: input.userId },
    event: { type: 'revision-requested', data: { version: version.version, by: input.userId, instruction: input.instruction.slice(0, 2000) } },
  });
  if (!asked.ok) return asked;
  await tellEscalationsClosed(ctx, asked.value, doubting, words`${person(input.userId)} asked the planner to revise the plan.`);
  const work = (async (): Promise<Effect[]> => {
    await ctx.thread.surface.planning(run);
    const planned = await makePlan(plannerDeps(ctx, run.id), {
      task: run.task,
      requester: run.requester,
      origin: run.origin,
      runId: run.id,
      revise: { instruction: input.instruction, by: input.userId, currentPlan: version.plan },
    });
    if (!planned.ok) {
      await ctx.thread.surface.notify(run, `I could not revise the plan: ${planned.error.message}. Version ${version.version} still stands.`);
      const back = await ctx.store.transitionRun(run.id, ['planning'], 'awaiting-approval');
      if (back) await reopenDoubts(ctx, { runId: run.id, planVersion: version.version, closed: doubting, why: planned.error.message });
      return [];
    }
    const record = await addPlannedVersion(ctx, {
      runId: run.id,
      planned: planned.value,
      parentVersion: version.version,
      reason: words`revised at ${person(input.userId)}'s request: ${input.instruction.slice(0, 300)}`,
      proposed: {},
    });
    return proposeVersion(ctx, record, { from: ['planning'], kind: 'revision' });
  })();
  return { ok: true, value: { work } };
}
