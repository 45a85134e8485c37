/** A person's answer to an escalation: Retry, Skip, Replan or Abort, each checked and then carried out. */
import { progressLine } from './policy-approval.ts';
import { planDigest } from './plan-digest.ts';
import { approvalNeed, checkApprover, checkPolicyApprover, checkResolver, planRisk, type ApprovalNeed, type ApproverRefusalCode } from './approval-policy.ts';
import type { AgentContext } from './context.ts';
import { descendantsOf } from './dispatcher.ts';
import type { DecisionRefusalCode, EscalationAction, EscalationRecord, RunRecord } from './ports/run-store.ts';
import { decisionRefusal } from './decision-refusals.ts';
import { refuse, type Refused } from './refusal.ts';
import { cancelUnstarted, finishRun, isFinal, NOT_FINAL } from './run-ending.ts';
import { rollBack, rollbackStepsInOrder } from './rollback.ts';
import { replan, replanBlocked } from './supervisor.ts';
import { SKIPPED_BY_PERSON } from './step-codes.ts';
import { person, type Text, words } from './text.ts';

/**
 * Why an escalation click changed nothing: the escalation or run is gone or done, who clicked, an
 * action this escalation cannot take, or the store's refusals.
 */
export type EscalationRefusalCode =
  DecisionRefusalCode | 'escalation-missing' | 'already-resolved' | 'run-ended' | 'cannot-replan' | 'nothing-to-skip' | 'plan-missing' | ApproverRefusalCode;

type EscalationResult<T = void> = Refused<T, EscalationRefusalCode, Text>;

const ok: EscalationResult = { ok: true, value: undefined };

export async function resolveEscalation(
  ctx: AgentContext,
  input: { escalationId: string; userId: string; action: EscalationAction },
): Promise<EscalationResult> {
  const escalation = await ctx.store.getEscalation(input.escalationId);
  if (!escalation) return refuse('escalation-missing', 'That escalation does not exist.');
  if (escalation.status === 'resolved')
    return refuse(
      'already-resolved',
      words`This escalation was already resolved (${escalation.resolution ?? '?'}) by ${person(escalation.resolvedBy ?? '?')}.`,
    );
  const run = await ctx.store.getRun(escalation.runId);
  if (!run || isFinal(run.status)) return refuse('run-ended', `The run already ended (${run?.status ?? 'gone'}).`);
  const allowed = await checkResolver({
    userId: input.userId,
    approvers: ctx.approvers,
    action: input.action,
    ...(ctx.policy ? { policy: { gate: ctx.policy, run } } : {}),
  });
  if (!allowed.ok) return allowed;
  // Held while the run is moved on and handed to a driver or planner here, so no peer adopts it in between.
  return ctx.leases.during(run.id, () => decideEscalation(ctx, run, escalation, input));
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
  if (checked.value.goAhead) {
    // Going ahead despite low confidence is the approval the escalation asked for: approval, resolution and start are one decision.
    const version = escalation.planVersion === null ? undefined : await ctx.store.getPlanVersion(run.id, escalation.planVersion);
    const digest = version ? await planDigest(version.plan) : null;
    const decided = await ctx.store.decide({
      ...base,
      from: ['awaiting-approval'],
      to: 'executing',
      approval: { userId: input.userId, decision: 'approved', need: checked.value.goAhead, digest },
      event: {
        type: 'plan-approved',
        data: { version: escalation.planVersion, by: input.userId, via: 'escalation', escalationId: escalation.id, action: input.action },
      },
    });
    if (!decided.ok) return { ok: false, error: decisionRefusal(decided.code, decided.run, escalation.planVersion) };
    ctx.kick(run.id);
    return ok;
  }
  const decided = await ctx.store.decide({
    ...base,
    from: input.action === 'abort' ? NOT_FINAL : ['paused', 'awaiting-approval'],
    event: { type: 'escalation-resolved', data: { escalationId: escalation.id, action: input.action, by: input.userId } },
  });
  if (!decided.ok) return { ok: false, error: decisionRefusal(decided.code, decided.run, escalation.planVersion) };
  await carryOut(ctx, decided.run, escalation, input);
  return ok;
}

/**
 * Why this action cannot be taken for this escalation; for going ahead on a low-confidence plan, the
 * approval need it was checked against (the slow approver lookup happens here, before the decision).
 */
async function refusal(
  ctx: AgentContext,
  run: RunRecord,
  escalation: EscalationRecord,
  input: { userId: string; action: EscalationAction },
): Promise<EscalationResult<{ goAhead: ApprovalNeed | null }>> {
  if (input.action === 'replan' || (escalation.kind === 'replan-failed' && input.action === 'retry')) {
    const why = await replanBlocked(ctx, run);
    return why ? refuse('cannot-replan', words`Cannot replan: ${why}.`) : { ok: true, value: { goAhead: null } };
  }
  if (escalation.kind === 'replan-failed' && input.action === 'skip')
    return refuse('nothing-to-skip', 'There is no step to skip here: choose Retry or Replan to ask the planner again, or Abort.');
  if (escalation.kind === 'low-confidence' && input.action !== 'abort') {
    if (run.currentPlanVersion !== escalation.planVersion) return { ok: false, error: decisionRefusal('plan-changed', run, escalation.planVersion) };
    if (run.status !== 'awaiting-approval' || run.currentPlanVersion === null) return refuse('not-waiting', 'This plan is no longer waiting for a decision.');
    const version = await ctx.store.getPlanVersion(run.id, run.currentPlanVersion);
    if (!version) return refuse('plan-missing', 'The plan is gone.');
    const need = approvalNeed(planRisk(version.plan, ctx.tools.riskOf));
    if (ctx.policy) {
      // Under TANDEM_POLICY going ahead is approving: this click must complete what every step's rule needs.
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
      if (!checked.ok) return checked;
      if (!checked.value.approved)
        return refuse(
          'policy-refused',
          `Going ahead takes every step's approvals: ${checked.value.progress.steps
            .filter((step) => !step.done)
            .map(progressLine)
            .join('; ')}. Approve on the plan message instead; each approval counts.`,
        );
      return { ok: true, value: { goAhead: need } };
    }
    const allowed = await checkApprover({ need, userId: input.userId, requester: run.requester, approvers: ctx.approvers });
    return allowed.ok ? { ok: true, value: { goAhead: need } } : allowed;
  }
  return { ok: true, value: { goAhead: null } };
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
