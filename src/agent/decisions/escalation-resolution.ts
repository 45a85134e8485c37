/**
 * A person's answer to an escalation, each checked and then carried out: Retry / Skip / Replan / Abort
 * for a step (also when the new plan its failure asked for could not be made), Approve anyway / Reject for a
 * low-confidence plan, Replan / Abort for a failed replan of the run as a whole.
 * Only the answers its kind offers count; refusals name people, never settings.
 */
import { movesFrom } from '../model/run-moves.ts';
import { progressLines } from './policy-approval.ts';
import { planDigest } from '../model/plan/plan-digest.ts';
import { approvalNeed, checkPolicyApprover, checkRequesterOrApprover, checkResolver, goAheadApproval, planRisk, type GoAhead } from './approval-policy.ts';
import type { AgentContext } from '../context.ts';
import { descendantsOf } from '../execution/ready-steps.ts';
import type { DecisionRefusalCode, EscalationAction, EscalationAnswer, EscalationRecord, RunRecord, StepMove, StepStatus } from '../ports/run-store.ts';
import { decisionRefusal, shownDigestRefusal } from './decision-refusals.ts';
import { ACTS_AS, ANSWER_WORDS, answerList, answerOf, isOffered, offeredAnswers } from '../execution/escalation-offer.ts';
import { refuse, type Refusal, type Refused } from '../model/refusal.ts';
import { isFinal, NOT_FINAL, summarizeEnded } from '../execution/run-ending.ts';
import { abortRun } from './run-abort.ts';
import { SKIPPED_BY_PERSON, UNCHECKED } from '../model/step-codes.ts';
import { escalationMessageKey } from '../delivery/owed-delivery.ts';
import { person, type Text, words } from '../text/text.ts';

/**
 * Why an escalation click changed nothing: the escalation or run is gone or done, who clicked, an
 * answer this escalation does not offer, or the store's refusals.
 */
export type { EscalationRefusalCode } from '../model/refusal.ts';
import type { ApproverRefusalCode, EscalationRefusalCode } from '../model/refusal.ts';
import { decided, decideHolding, drive, replanRun, stopDriver, type Decided, type Effect } from '../ports/effects.ts';

type EscalationResult<T = void> = Refused<T, EscalationRefusalCode, Text>;
/** `digest`: the plan digest an "Approve anyway" button was drawn for (its short form), bound as Approve binds it. */
type Answer = { escalationId: string; userId: string; action: EscalationAnswer; digest?: string | undefined };

const ok: EscalationResult = { ok: true, value: undefined };

/** The answer, and what should happen next: the wiring performs it, then lets go of the run's lease taken here. */
export async function resolveEscalation(ctx: AgentContext, input: Answer): Promise<Decided<EscalationResult>> {
  const escalation = await ctx.store.getEscalation(input.escalationId);
  if (!escalation) return decided(refuse('escalation-missing', 'That escalation no longer exists; nothing was done.'));
  if (escalation.status === 'resolved')
    return decided(refuse('already-resolved', words`This was already answered: ${answeredLine(escalation)}. Nothing more was done.`));
  const run = await ctx.store.getRun(escalation.runId);
  if (!run || isFinal(run.status)) return decided(refuse('run-ended', 'This run has already ended; nothing was done.'));
  const answers = await offeredAnswers(ctx, run, escalation);
  if (input.action === 'modify' || !isOffered(answers, input.action)) {
    const choose = answers.filter((answer) => answer !== 'modify');
    return decided(
      refuse('not-offered', choose.length ? `That answer does not apply here; choose ${answerList(choose)}.` : 'There is nothing to choose here.'),
    );
  }
  const action = ACTS_AS[input.action];
  const allowed = await checkWho(ctx, run, escalation, input.userId, action);
  if (!allowed.ok) return decided(allowed);
  // Held while the run is moved on and until the wiring handed it to a driver or planner, so no peer adopts it in between.
  return decideHolding(ctx.replica.leases, run.id, () => decideEscalation(ctx, run, escalation, { ...input, action }));
}

/** "Retried by <@U1>": who chose what, for a resolved escalation. */
export function answeredLine(escalation: EscalationRecord): Text {
  const answer = escalation.resolution ? ANSWER_WORDS[answerOf(escalation, escalation.resolution)].past : 'Answered';
  return escalation.resolvedBy ? words`${answer} by ${person(escalation.resolvedBy)}` : answer;
}

/**
 * Who may answer: rejecting a low-confidence plan is what rejecting any plan takes (the requester or an
 * approver); every other answer decides what runs next, so it takes an approver. The policy decides;
 * the words here name the people, not the setting.
 */
async function checkWho(ctx: AgentContext, run: RunRecord, escalation: EscalationRecord, userId: string, action: EscalationAction): Promise<EscalationResult> {
  if (escalation.kind === 'low-confidence' && action === 'abort')
    return checkRequesterOrApprover({ action: 'reject', userId, policy: { gate: ctx.config.policy, run } });
  const fromSettings = ctx.config.policy.current().fromSettings === true;
  // Under a policy file going ahead is approving the plan's steps, asked in refusal() below, not `skip` on the run.
  if (escalation.kind === 'low-confidence' && !fromSettings) return ok;
  const allowed = await checkResolver({ userId, action, policy: { gate: ctx.config.policy, run } });
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
  input: Omit<Answer, 'action'> & { action: EscalationAction },
): Promise<Decided<EscalationResult>> {
  const checked = await refusal(ctx, run, escalation, input);
  if (!checked.ok) return decided(checked);
  const base = { runId: run.id, planVersion: escalation.planVersion, escalation: { id: escalation.id, action: input.action, userId: input.userId } };
  if (escalation.kind === 'low-confidence' && input.action === 'abort') {
    // Rejecting a plan the planner was not sure of ends the run as any rejected plan does.
    if (escalation.planVersion === null) return decided(refuse('plan-missing', 'The plan is gone.'));
    const rejected = await ctx.store.decide({
      ...base,
      from: ['awaiting-approval'],
      to: 'rejected',
      approval: { userId: input.userId, decision: 'rejected' },
      event: { type: 'plan-rejected', data: { version: escalation.planVersion, by: input.userId } },
    });
    if (!rejected.ok) return decided({ ok: false, error: storeRefusal(rejected.code, rejected.run, escalation.planVersion) });
    await summarizeEnded(ctx, run.id, 'rejected', words`Rejected by ${person(input.userId)}.`);
    return decided(ok);
  }
  if (checked.value.goAhead) {
    // Going ahead despite low confidence is the approval the escalation asked for: approval, resolution and start are one decision.
    const version = escalation.planVersion === null ? undefined : await ctx.store.getPlanVersion(run.id, escalation.planVersion);
    const digest = version ? await planDigest(version.plan) : null;
    const stale = version && digest ? shownDigestRefusal(input.digest, digest, version.version) : undefined;
    if (stale) return decided({ ok: false, error: stale });
    const approved = await ctx.store.decide({
      ...base,
      from: ['awaiting-approval'],
      to: 'executing',
      approval: { userId: input.userId, decision: 'approved', ...checked.value.goAhead, digest },
      event: {
        type: 'plan-approved',
        data: { version: escalation.planVersion, by: input.userId, via: 'escalation', escalationId: escalation.id, action: input.action },
      },
    });
    if (!approved.ok) return decided({ ok: false, error: storeRefusal(approved.code, approved.run, escalation.planVersion) });
    return decided(ok, [drive(run.id)]);
  }
  // Abort and a new plan end every wait of the run: the other open escalations are closed with this answer.
  const endsEveryWait = input.action === 'abort' || input.action === 'replan';
  const others = endsEveryWait ? (await ctx.store.listEscalations(run.id)).filter((e) => e.status === 'open' && e.id !== escalation.id) : [];
  const answered = await ctx.store.decide({
    ...base,
    // A step's escalation is answered while the rest of the run goes on (executing) or waits (paused).
    from: input.action === 'abort' ? NOT_FINAL : movesFrom('answer-step'),
    ...(endsEveryWait ? { alsoResolve: { action: input.action, userId: input.userId } } : { steps: await stepMoves(ctx, run.id, escalation, input.action) }),
    event: {
      type: 'escalation-resolved',
      data: { escalationId: escalation.id, action: input.action, by: input.userId, ...(others.length ? { alsoClosed: others.map((e) => e.id) } : {}) },
    },
  });
  if (!answered.ok) return decided({ ok: false, error: storeRefusal(answered.code, answered.run, escalation.planVersion) });
  if (others.length) await tellClosed(ctx, answered.run, others, answeredLine({ ...escalation, resolution: input.action, resolvedBy: input.userId }));
  return decided(ok, await carryOut(ctx, answered.run, escalation, input));
}

/** The other escalations an Abort or a new plan closed lose their buttons and say so. */
async function tellClosed(ctx: AgentContext, run: RunRecord, closed: readonly EscalationRecord[], closedBy: Text): Promise<void> {
  if (!ctx.thread.surface.escalationsClosed) return;
  const steps = await ctx.store.listSteps(run.id);
  const titleOf = (e: EscalationRecord) => steps.find((s) => s.stepId === e.stepId && s.planVersion === e.planVersion)?.title ?? null;
  await ctx.thread.surface.escalationsClosed(
    run,
    closed.map((escalation) => ({ escalation, stepTitle: titleOf(escalation), key: escalationMessageKey(escalation) })),
    closedBy,
  );
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
  const replans = input.action === 'replan';
  // The offer left replanning out when it could not happen; a new plan may have been spent since it was posted.
  if (replans && !(await offeredAnswers(ctx, run, escalation)).includes('replan'))
    return refuse('cannot-replan', 'A new plan cannot be made for this run any more; choose another answer.');
  if (escalation.kind !== 'low-confidence' || input.action === 'abort' || replans) return { ok: true, value: { goAhead: null } };
  if (run.currentPlanVersion !== escalation.planVersion) return { ok: false, error: storeRefusal('plan-changed', run, escalation.planVersion) };
  if (run.status !== 'awaiting-approval' || run.currentPlanVersion === null)
    return { ok: false, error: storeRefusal('not-waiting', run, escalation.planVersion) };
  const version = await ctx.store.getPlanVersion(run.id, run.currentPlanVersion);
  if (!version) return refuse('plan-missing', 'The plan is gone.');
  const need = approvalNeed(planRisk(version.plan, ctx.config.tools.riskOf));
  {
    // Going ahead is approving: this click must complete what every step's rule needs.
    const earlier = await ctx.store.listApprovals(run.id);
    const checked = await checkPolicyApprover({
      gate: ctx.config.policy,
      userId: input.userId,
      run,
      version,
      digest: await planDigest(version.plan),
      riskOf: ctx.config.tools.riskOf,
      earlier,
    });
    if (!checked.ok) return ctx.config.policy.current().fromSettings ? settingsGoAheadRefusal(checked.error.code, run) : checked;
    if (!checked.value.approved)
      return refuse(
        'policy-refused',
        `Going ahead takes every step's approvals: ${progressLines(
          version.plan,
          checked.value.progress.steps.filter((step) => !step.done),
        ).join('; ')}. Approve on the plan message instead; each approval counts.`,
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

/** Carries out what the answer decided; returns what should happen next, in order. */
async function carryOut(
  ctx: AgentContext,
  run: RunRecord,
  escalation: EscalationRecord,
  input: { userId: string; action: EscalationAction },
): Promise<Effect[]> {
  const { action, userId } = input;
  if (action === 'abort') return [abortRun(run.id, words`Aborted by ${person(userId)}.`)];
  // A new plan replaces the one running: its driver starts nothing more, and a step it is running ends and is
  // recorded as it really ended before the planner is asked, so no write is cut mid-call and the new plan is
  // made knowing what it did (decision 041). The effects are performed in this order, each awaited.
  if (action === 'replan')
    return [stopDriver(run.id, 'drain'), replanRun(run.id, words`${person(userId)} asked for a new plan after: ${escalation.message}`, movesFrom('replan'))];
  return continueIfClear(ctx, run.id);
}

/**
 * What a Retry or Skip moves, written with the answer (see DecisionInput.steps). Retry: the step and what it
 * held back go back to pending. Skip: the result it has is accepted (what depends on it runs), or it is
 * skipped (what depends on it stays skipped).
 */
async function stepMoves(ctx: AgentContext, runId: string, escalation: EscalationRecord, action: EscalationAction): Promise<StepMove[]> {
  const { planVersion, stepId } = escalation;
  if (!stepId || planVersion === null || (action !== 'retry' && action !== 'skip')) return [];
  const steps = await ctx.store.listSteps(runId, planVersion);
  const step = steps.find((s) => s.stepId === stepId && s.kind === 'forward');
  if (!step) return [];
  const from: StepStatus[] = ['failed', 'uncertain'];
  const moves: StepMove[] = [];
  if (action === 'skip' && step.error?.code === UNCHECKED && step.output) {
    // Accepting a result nobody could check: it counts as done and stays marked unchecked (its note starts `unchecked:`).
    moves.push({ planVersion, stepId, from, to: 'succeeded', error: { message: step.error.message, code: UNCHECKED } });
  } else if (action === 'skip') {
    const to = step.output ? 'succeeded' : 'skipped';
    // The address of what a failed call made stays with it: the change is still made (model/step-change.ts).
    const made = { ...(step.error?.url ? { url: step.error.url } : {}), ...(step.error?.madeBefore ? { madeBefore: step.error.madeBefore } : {}) };
    // Skipping an uncertain step does not settle it: it may have taken effect all the same, and the summary, the
    // board and an Abort keep saying so (model/step-change.ts skippedWhileUncertain).
    const unknown = step.status === 'uncertain' ? { uncertain: true } : {};
    moves.push({
      planVersion,
      stepId,
      from,
      to,
      error: { message: `skipped by a person: ${step.error?.message ?? ''}`.trim(), code: SKIPPED_BY_PERSON, ...made, ...unknown },
    });
    if (to === 'skipped') return moves; // what waits on it stays skipped
  } else moves.push({ planVersion, stepId, from, to: 'pending' });
  // The step will run again or its result stands: what it held back may run after all (the driver skips
  // again what still waits on another failure).
  const version = await ctx.store.getPlanVersion(runId, planVersion);
  const blocked = descendantsOf(version?.plan.steps ?? [], stepId);
  for (const s of steps)
    if (blocked.has(s.stepId) && s.kind === 'forward' && s.status === 'skipped')
      moves.push({ planVersion, stepId: s.stepId, from: ['skipped'], to: 'pending', error: null });
  return moves;
}

/**
 * An answer let a step go on (a Retry, a Skip, an answered question, a Confirm): the run executes again at
 * once, whatever other waits are still open, unless a wait of the whole run (no step of its own) holds it.
 * An executing run's driver is woken; a paused one is resumed, and pauses again if nothing can go on.
 */
export async function continueIfClear(ctx: Pick<AgentContext, 'store'>, runId: string): Promise<Effect[]> {
  const held = (await ctx.store.listEscalations(runId)).some((e) => e.status === 'open' && e.stepId === null);
  if (held) return [];
  if (await ctx.store.transitionRun(runId, movesFrom('resume'), 'executing')) await ctx.store.appendEvent(runId, 'run-resumed', {});
  return [drive(runId)];
}
