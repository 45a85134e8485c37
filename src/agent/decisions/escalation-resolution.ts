/**
 * A person's answer to an escalation, each checked and then carried out: Retry / Skip / Replan / Abort
 * for a step, Approve anyway / Reject for a low-confidence plan, Try again / Abort for a failed replan.
 * Only the answers its kind offers count; refusals name people, never settings.
 */
import { progressLine } from './policy-approval.ts';
import { planDigest } from '../model/plan-digest.ts';
import { approvalNeed, checkPolicyApprover, checkRequesterOrApprover, checkResolver, goAheadApproval, planRisk, type GoAhead } from './approval-policy.ts';
import type { AgentContext } from '../context.ts';
import { descendantsOf } from '../execution/ready-steps.ts';
import type { DecisionRefusalCode, EscalationAction, EscalationAnswer, EscalationRecord, RunRecord } from '../ports/run-store.ts';
import { decisionRefusal } from './decision-refusals.ts';
import { ACTS_AS, ANSWER_WORDS, answerList, answerOf, isOffered, offeredAnswers } from '../execution/escalation-offer.ts';
import { refuse, type Refusal, type Refused } from '../model/refusal.ts';
import { cancelUnstarted, finishRun, isFinal, NOT_FINAL, summarizeEnded } from '../execution/run-ending.ts';
import { rollBack, rollbackStepsInOrder } from '../execution/rollback.ts';
import { replan } from '../execution/supervisor.ts';
import { SKIPPED_BY_PERSON } from '../model/step-codes.ts';
import { person, type Text, words } from '../text/text.ts';

/**
 * Why an escalation click changed nothing: the escalation or run is gone or done, who clicked, an
 * answer this escalation does not offer, or the store's refusals.
 */
export type { EscalationRefusalCode } from '../model/refusal.ts';
import type { ApproverRefusalCode, EscalationRefusalCode } from '../model/refusal.ts';

type EscalationResult<T = void> = Refused<T, EscalationRefusalCode, Text>;
type Answer = { escalationId: string; userId: string; action: EscalationAnswer };

const ok: EscalationResult = { ok: true, value: undefined };

export async function resolveEscalation(ctx: AgentContext, input: Answer): Promise<EscalationResult> {
  const escalation = await ctx.store.getEscalation(input.escalationId);
  if (!escalation) return refuse('escalation-missing', 'That escalation no longer exists; nothing was done.');
  if (escalation.status === 'resolved')
    return refuse('already-resolved', words`This was already answered: ${answeredLine(escalation)}. Nothing more was done.`);
  const run = await ctx.store.getRun(escalation.runId);
  if (!run || isFinal(run.status)) return refuse('run-ended', 'This run has already ended; nothing was done.');
  const answers = await offeredAnswers(ctx, run, escalation);
  if (input.action === 'modify' || !isOffered(answers, input.action)) {
    const choose = answers.filter((answer) => answer !== 'modify');
    return refuse('not-offered', choose.length ? `That answer does not apply here; choose ${answerList(choose)}.` : 'There is nothing to choose here.');
  }
  const action = ACTS_AS[input.action];
  const allowed = await checkWho(ctx, run, escalation, input.userId, action);
  if (!allowed.ok) return allowed;
  // Held while the run is moved on and handed to a driver or planner here, so no peer adopts it in between.
  return ctx.leases.during(run.id, () => decideEscalation(ctx, run, escalation, { ...input, action }));
}

/** "Retried by <@U1>": who chose what, for a resolved escalation. */
export function answeredLine(escalation: EscalationRecord): Text {
  const answer = escalation.resolution ? ANSWER_WORDS[answerOf(escalation.kind, escalation.resolution)].past : 'Answered';
  return escalation.resolvedBy ? words`${answer} by ${person(escalation.resolvedBy)}` : answer;
}

/**
 * Who may answer: rejecting a low-confidence plan is what rejecting any plan takes (the requester or an
 * approver); every other answer decides what runs next, so it takes an approver. The policy decides;
 * the words here name the people, not the setting.
 */
async function checkWho(ctx: AgentContext, run: RunRecord, escalation: EscalationRecord, userId: string, action: EscalationAction): Promise<EscalationResult> {
  if (escalation.kind === 'low-confidence' && action === 'abort')
    return checkRequesterOrApprover({ action: 'reject', userId, policy: { gate: ctx.policy, run } });
  const fromSettings = ctx.policy.current().fromSettings === true;
  // Under a policy file going ahead is approving the plan's steps, asked in refusal() below, not `skip` on the run.
  if (escalation.kind === 'low-confidence' && !fromSettings) return ok;
  const allowed = await checkResolver({ userId, action, policy: { gate: ctx.policy, run } });
  if (allowed.ok) return ok;
  // A policy file's refusal names its rule and who may; the built-in policy's is put in words for the thread below.
  if (!fromSettings) return allowed;
  const what = escalation.kind === 'low-confidence' ? 'approve this plan' : 'choose how this run goes on';
  return refuse(
    allowed.error.code,
    words`Only an approver can ${what}, and you are not one. ${person(run.requester)} asked for it; ask an approver to answer here.`,
  );
}

async function decideEscalation(
  ctx: AgentContext,
  run: RunRecord,
  escalation: EscalationRecord,
  input: { escalationId: string; userId: string; action: EscalationAction },
): Promise<EscalationResult> {
  const checked = await refusal(ctx, run, escalation, input);
  if (!checked.ok) return checked;
  const base = { runId: run.id, planVersion: escalation.planVersion, escalation: { id: escalation.id, action: input.action, userId: input.userId } };
  if (escalation.kind === 'low-confidence' && input.action === 'abort') {
    // Rejecting a plan the planner was not sure of ends the run as any rejected plan does.
    if (escalation.planVersion === null) return refuse('plan-missing', 'The plan is gone.');
    const decided = await ctx.store.decide({
      ...base,
      from: ['awaiting-approval'],
      to: 'rejected',
      approval: { userId: input.userId, decision: 'rejected' },
      event: { type: 'plan-rejected', data: { version: escalation.planVersion, by: input.userId } },
    });
    if (!decided.ok) return { ok: false, error: storeRefusal(decided.code, decided.run, escalation.planVersion) };
    await summarizeEnded(ctx, run.id, 'rejected', words`Rejected by ${person(input.userId)}.`);
    return ok;
  }
  if (checked.value.goAhead) {
    // Going ahead despite low confidence is the approval the escalation asked for: approval, resolution and start are one decision.
    const version = escalation.planVersion === null ? undefined : await ctx.store.getPlanVersion(run.id, escalation.planVersion);
    const digest = version ? await planDigest(version.plan) : null;
    const decided = await ctx.store.decide({
      ...base,
      from: ['awaiting-approval'],
      to: 'executing',
      approval: { userId: input.userId, decision: 'approved', ...checked.value.goAhead, digest },
      event: {
        type: 'plan-approved',
        data: { version: escalation.planVersion, by: input.userId, via: 'escalation', escalationId: escalation.id, action: input.action },
      },
    });
    if (!decided.ok) return { ok: false, error: storeRefusal(decided.code, decided.run, escalation.planVersion) };
    ctx.kick(run.id);
    return ok;
  }
  const decided = await ctx.store.decide({
    ...base,
    from: input.action === 'abort' ? NOT_FINAL : ['paused', 'awaiting-approval'],
    event: { type: 'escalation-resolved', data: { escalationId: escalation.id, action: input.action, by: input.userId } },
  });
  if (!decided.ok) return { ok: false, error: storeRefusal(decided.code, decided.run, escalation.planVersion) };
  await carryOut(ctx, decided.run, escalation, input);
  return ok;
}

/** The store's refusals in words for an escalation: no run states or versions the person did not see. */
function storeRefusal(code: DecisionRefusalCode, run: RunRecord | undefined, planVersion: number | null): Refusal<DecisionRefusalCode, Text> {
  if (code === 'not-waiting') return { code, message: 'This is no longer waiting for an answer; nothing was done.' };
  if (code === 'escalation-resolved') return { code, message: 'Someone else answered this first; nothing was done.' };
  return decisionRefusal(code, run, planVersion);
}

/**
 * Why this answer cannot be taken now; for going ahead on a low-confidence plan, the approval need it
 * was checked against (the slow approver lookup happens here, before the decision).
 */
async function refusal(
  ctx: AgentContext,
  run: RunRecord,
  escalation: EscalationRecord,
  input: { userId: string; action: EscalationAction },
): Promise<EscalationResult<{ goAhead: GoAhead | null }>> {
  const replans = input.action === 'replan' || (escalation.kind === 'replan-failed' && input.action === 'retry');
  // The offer left replanning out when it could not happen; a new plan may have been spent since it was posted.
  if (replans && !(await offeredAnswers(ctx, run, escalation)).some((answer) => answer === 'replan' || answer === 'try-again'))
    return refuse('cannot-replan', 'A new plan cannot be made for this run any more; choose another answer.');
  if (escalation.kind !== 'low-confidence' || input.action === 'abort' || replans) return { ok: true, value: { goAhead: null } };
  if (run.currentPlanVersion !== escalation.planVersion) return { ok: false, error: storeRefusal('plan-changed', run, escalation.planVersion) };
  if (run.status !== 'awaiting-approval' || run.currentPlanVersion === null)
    return { ok: false, error: storeRefusal('not-waiting', run, escalation.planVersion) };
  const version = await ctx.store.getPlanVersion(run.id, run.currentPlanVersion);
  if (!version) return refuse('plan-missing', 'The plan is gone.');
  const need = approvalNeed(planRisk(version.plan, ctx.tools.riskOf));
  {
    // Going ahead is approving: this click must complete what every step's rule needs.
    const earlier = await ctx.store.listApprovals(run.id);
    const checked = await checkPolicyApprover({
      gate: ctx.policy,
      userId: input.userId,
      run,
      version,
      digest: await planDigest(version.plan),
      riskOf: ctx.tools.riskOf,
      earlier,
    });
    if (!checked.ok) return ctx.policy.current().fromSettings ? settingsGoAheadRefusal(checked.error.code, run) : checked;
    if (!checked.value.approved)
      return refuse(
        'policy-refused',
        `Going ahead takes every step's approvals: ${checked.value.progress.steps
          .filter((step) => !step.done)
          .map(progressLine)
          .join('; ')}. Approve on the plan message instead; each approval counts.`,
      );
    return { ok: true, value: { goAhead: goAheadApproval(need, checked.value) } };
  }
}

/** The built-in policy's refusal of going ahead, in the words people knew. */
function settingsGoAheadRefusal(code: ApproverRefusalCode, run: RunRecord): EscalationResult<never> {
  return refuse(
    code,
    code === 'requester-may-not-approve-destructive'
      ? words`This plan has a destructive step, so an approver other than ${person(run.requester)}, who asked for it, must approve it.`
      : 'Only an approver can approve this plan, and you are not one; ask an approver to answer here.',
  );
}

async function carryOut(ctx: AgentContext, run: RunRecord, escalation: EscalationRecord, input: { userId: string; action: EscalationAction }): Promise<void> {
  const { action, userId } = input;
  if (action === 'abort') return abortRun(ctx, run.id, words`Aborted by ${person(userId)}.`);
  if (action === 'replan')
    return replan(ctx, run.id, words`${person(userId)} asked for a new plan after: ${escalation.message}`, ['paused', 'awaiting-approval']);
  if (escalation.kind === 'replan-failed') return replan(ctx, run.id, words`retry after the planner failed: ${escalation.message}`, ['paused']);
  if (escalation.stepId && escalation.planVersion) await settleStep(ctx, run.id, escalation.planVersion, escalation.stepId, action);
  await continueIfClear(ctx, run.id);
}

/** Retry: the step and what it blocked go back to pending. Skip: accept the result it has (dependants run), or skip it (they stay skipped). */
async function settleStep(ctx: AgentContext, runId: string, planVersion: number, stepId: string, action: 'retry' | 'skip'): Promise<void> {
  const key = { runId, planVersion, stepId };
  const steps = await ctx.store.listSteps(runId, planVersion);
  const step = steps.find((s) => s.stepId === stepId && s.kind === 'forward');
  if (!step) return;
  if (action === 'skip') {
    const to = step.output ? 'succeeded' : 'skipped';
    await ctx.store.setStepStatus({
      ...key,
      from: ['failed', 'uncertain'],
      to,
      error: { message: `skipped by a person: ${step.error?.message ?? ''}`.trim(), code: SKIPPED_BY_PERSON },
    });
    if (to === 'skipped') return; // what waits on it stays skipped
  } else {
    await ctx.store.setStepStatus({ ...key, from: ['failed', 'uncertain'], to: 'pending' });
  }
  // The step will run again or its result stands: what it blocked may run after all.
  const version = await ctx.store.getPlanVersion(runId, planVersion);
  const blocked = descendantsOf(version?.plan.steps ?? [], stepId);
  for (const s of steps) {
    if (blocked.has(s.stepId) && s.kind === 'forward' && s.status === 'skipped') {
      await ctx.store.setStepStatus({ runId, planVersion, stepId: s.stepId, from: ['skipped'], to: 'pending', error: null });
    }
  }
}

/** A paused run goes on once no escalation holds it. */
export async function continueIfClear(ctx: AgentContext, runId: string): Promise<void> {
  const open = (await ctx.store.listEscalations(runId)).filter((e) => e.status === 'open');
  if (open.length) return;
  if (await ctx.store.transitionRun(runId, ['paused'], 'executing')) {
    await ctx.store.appendEvent(runId, 'run-resumed', {});
    ctx.kick(runId);
  }
}

/** Stop everything, roll back what succeeded (newest first), and end the run as aborted. */
export async function abortRun(ctx: AgentContext, runId: string, reason: Text): Promise<void> {
  await ctx.stopDriver(runId, 'abort');
  // A driver on another replica sees the run leave `executing` and lets go; the rollback waits for its lease.
  await ctx.store.transitionRun(runId, ['executing', 'paused', 'awaiting-approval', 'awaiting-answer', 'planning'], 'rolling-back');
  await ctx.leases.take(runId);
  try {
    await rollBackAndFinish(ctx, runId, reason);
  } finally {
    await ctx.leases.release(runId).catch(() => undefined);
  }
}

async function rollBackAndFinish(ctx: AgentContext, runId: string, reason: Text): Promise<void> {
  await cancelUnstarted(ctx, runId, 'not started: the run was aborted');
  // The run stays rolling back while a rollback step waits for a Confirm; the Confirm or Abort carries it on.
  if ((await rollBack(ctx, runId)) === 'waiting') return;
  const [versions, steps] = await Promise.all([ctx.store.listPlanVersions(runId), ctx.store.listSteps(runId)]);
  const rolled = rollbackStepsInOrder(versions, steps, ctx.tools.riskOf);
  const detail = rolled.length ? ` Rolled back: ${rolled.map((s) => `${s.title} (${s.status})`).join('; ')}.` : ' Nothing needed rolling back.';
  await finishRun(ctx, runId, 'aborted', words`${reason}${detail}`);
}
