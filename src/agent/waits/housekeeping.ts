/**
 * The periodic sweep over every wait for a person (a plan's approval, a question, an escalation, a
 * Confirm): each is re-pinged once after `remindAfterS`, and expires after `waitTtlS` — a plan can no
 * longer be approved (it can only be proposed again), a Confirm aborts its run as an Abort would, and
 * an escalation or question is sent again to `escalateTo` while the run stays paused. Expiry never runs
 * anything. It also reports steps that look stuck. Every replica sweeps; the store's claimReminder lets
 * each message go out once, and finishRun's conditional transition lets one replica expire a plan.
 */
import { WAITING_RUN_STATUSES } from '../model/run-moves.ts';
import type { AgentContext, HousekeepingSettings } from '../context.ts';
import type { RunRecord, RunStatus } from '../ports/run-store.ts';
import type { WaitAddressee } from '../ports/surface.ts';
import { finishRun } from '../execution/run-ending.ts';
import { expireConfirmation } from '../decisions/target-decision.ts';
import { escalationOffer } from '../execution/escalation-offer.ts';
import { escalate } from '../execution/escalation.ts';
import { withStepTitle } from '../delivery/owed-delivery.ts';
import { person, type Text, type TextPart, words } from '../text/text.ts';
import { currentAddressee, waitKey, type WaitKind } from './addressee.ts';
import { drive } from '../ports/effects.ts';

export const DEFAULT_HOUSEKEEPING: HousekeepingSettings = { remindAfterS: 1800, waitTtlS: 86_400 };

/** Runs that can wait on people or hold running steps. */
const SWEPT: readonly RunStatus[] = WAITING_RUN_STATUSES;
/** Far more than are ever waiting at once; the newest come first. */
const SWEEP_LIMIT = 1000;
/** Approvers named in a reminder; a longer list is a group's job. */
const MAX_PINGED = 5;
const MINUTE = 60_000;

export async function runHousekeeping(ctx: AgentContext, now: Date): Promise<void> {
  const settings = { ...DEFAULT_HOUSEKEEPING, ...ctx.config.settings.housekeeping };
  const runs = await ctx.store.listRuns({ limit: SWEEP_LIMIT, statuses: SWEPT });
  const checks = [remindOrExpireApproval, remindOrResendEscalations, remindOrResendQuestions, remindOrExpireConfirmations, reportStuckSteps, findHangingRun];
  for (const run of runs) {
    for (const check of checks) {
      // One bad run (or one failing check) must not stop the sweep.
      await check(ctx, run, now, settings).catch((error: unknown) => ctx.logger.warn({ runId: run.id, err: error }, `housekeeping: ${check.name} failed`));
    }
  }
}

/** What a wait has come to at `now`: nothing yet, its one reminder, or its expiry. */
type Stage = 'none' | 'remind' | 'expire';
function stageOf(openedAt: Date, now: Date, settings: HousekeepingSettings): Stage {
  const waitedS = (now.getTime() - openedAt.getTime()) / 1000;
  if (waitedS >= settings.waitTtlS) return 'expire';
  return waitedS >= settings.remindAfterS ? 'remind' : 'none';
}

async function remindOrExpireApproval(ctx: AgentContext, run: RunRecord, now: Date, settings: HousekeepingSettings): Promise<void> {
  if (run.status !== 'awaiting-approval' || run.currentPlanVersion === null) return;
  const version = await ctx.store.getPlanVersion(run.id, run.currentPlanVersion);
  if (!version) return;
  const stage = stageOf(version.createdAt, now, settings);
  if (stage === 'expire') {
    const reason = words`The plan expired: nobody approved it within ${duration(settings.waitTtlS)}, and nothing ran. It can only be proposed again, as a fresh plan to approve.`;
    if (await finishRun(ctx, run.id, 'rejected', reason, ['awaiting-approval'], { expired: true })) {
      await ctx.store.appendEvent(run.id, 'plan-expired', { version: version.version, afterMinutes: Math.round(settings.waitTtlS / 60) });
    }
    return;
  }
  if (stage !== 'remind') return;
  if (!(await ctx.store.claimReminder({ runId: run.id, kind: 'approval-reminder', key: `v${version.version}` }))) return;
  const left = settings.waitTtlS - Math.floor((now.getTime() - version.createdAt.getTime()) / 1000);
  const addressee = currentAddressee(await ctx.store.listEvents(run.id), 'approval', waitKey({ kind: 'approval', planVersion: version.version }));
  // Handed to someone, the reminder is theirs: it names them, not every approver.
  const whom = addressee
    ? words`${person(addressee.to)} this is still waiting on you (${person(addressee.by)} handed it to you): the plan above waits for your approval.`
    : words`${approverPings(settings)}The plan above is still waiting for an approver.`;
  await ctx.thread.surface.notify(run, words`${whom} Nothing runs until someone approves it; it expires in ${duration(left)}.`);
}

/** An open escalation is posted again (buttons and all) at the bottom of the thread: once as a reminder, once more when it expires. */
async function remindOrResendEscalations(ctx: AgentContext, run: RunRecord, now: Date, settings: HousekeepingSettings): Promise<void> {
  const open = (await ctx.store.listEscalations(run.id)).filter((escalation) => escalation.status === 'open');
  for (const escalation of open) {
    const stage = stageOf(escalation.createdAt, now, settings);
    if (stage === 'none') continue;
    const key = stage === 'expire' ? `${escalation.id}#expired` : escalation.id;
    if (!(await ctx.store.claimReminder({ runId: run.id, kind: 'escalation-reping', key }))) continue;
    const stakes =
      stage === 'expire'
        ? `Nobody has decided in ${duration(settings.waitTtlS)}; the run stays paused until someone picks an action.`
        : 'Still waiting for a decision; the run stays paused until someone picks an action.';
    const addressee = await pingAddressee(ctx, run, 'escalation', escalation.id);
    const offer = await escalationOffer(ctx, run, escalation, stakes);
    await ctx.thread.surface.escalate(run, escalation, addressee ? { ...offer, addressee } : offer);
  }
}

/** An unanswered question is asked again: once as a reminder, and when it expires with a ping for `escalateTo`. */
async function remindOrResendQuestions(ctx: AgentContext, run: RunRecord, now: Date, settings: HousekeepingSettings): Promise<void> {
  if (run.status !== 'awaiting-answer' && run.status !== 'paused' && run.status !== 'executing') return;
  const open = (await ctx.store.listQuestions(run.id)).filter((question) => question.answer === null && question.planVersion === run.currentPlanVersion);
  for (const question of open) {
    const stage = stageOf(question.createdAt, now, settings);
    if (stage === 'none') continue;
    const key = stage === 'expire' ? `${question.id}#expired` : question.id;
    if (!(await ctx.store.claimReminder({ runId: run.id, kind: 'question-reminder', key }))) continue;
    if (stage === 'expire' && settings.escalateTo) {
      await ctx.thread.surface.notify(
        run,
        words`${person(settings.escalateTo)} nobody has answered the question below in ${duration(settings.waitTtlS)}; the run waits for an answer.`,
      );
    }
    const addressee = await pingAddressee(ctx, run, 'question', waitKey({ kind: 'question', question }));
    const asked = { questionId: question.id, ...(addressee ? { addressee } : {}) };
    if (question.stepId) await ctx.thread.surface.ask(run, question.stepId, question.question, undefined, asked);
    else await ctx.thread.surface.askRequester(run, question.question.split('\n'), asked);
  }
}

/**
 * A pending Confirm is asked again at the bottom of the thread once (people see it, and a request whose
 * first post was lost still arrives); when it expires, its step never runs and the run is aborted.
 */
async function remindOrExpireConfirmations(ctx: AgentContext, run: RunRecord, now: Date, settings: HousekeepingSettings): Promise<void> {
  if (run.status !== 'paused' && run.status !== 'executing' && run.status !== 'rolling-back') return;
  const pending = (await ctx.store.listConfirmations(run.id)).filter(
    (confirmation) => confirmation.status === 'pending' && (run.status === 'rolling-back' || confirmation.planVersion === run.currentPlanVersion),
  );
  for (const confirmation of pending) {
    const stage = stageOf(confirmation.createdAt, now, settings);
    if (stage === 'none') continue;
    // A rollback waiting for a Confirm is not aborted again: it is asked again, for escalateTo too.
    if (stage === 'expire' && run.status !== 'rolling-back') {
      await expireConfirmation(ctx, confirmation, duration(settings.waitTtlS));
      continue;
    }
    const key = `v${confirmation.planVersion}/${confirmation.stepId}${stage === 'expire' ? '#expired' : ''}`;
    if (!(await ctx.store.claimReminder({ runId: run.id, kind: 'confirm-reping', key }))) continue;
    const addressee = await pingAddressee(ctx, run, 'confirm', waitKey({ kind: 'confirm', confirmation }));
    await ctx.thread.surface.confirmTarget(run, await withStepTitle(ctx, confirmation), undefined, addressee);
  }
}

/**
 * A run that waits for nobody: paused with no open wait (no escalation, question, Confirm or waiting step)
 * is handed to a person with Retry / Abort; an executing run on a store this process has alone gets its
 * driver back (a live one is only woken), which goes on or, failing again and again, escalates.
 */
async function findHangingRun(ctx: AgentContext, run: RunRecord): Promise<void> {
  if (run.status === 'executing' && ctx.replica.soleOwner) return ctx.effects.perform(drive(run.id));
  if (run.status !== 'paused') return;
  const [escalations, questions, confirmations, steps] = await Promise.all([
    ctx.store.listEscalations(run.id),
    ctx.store.listQuestions(run.id),
    ctx.store.listConfirmations(run.id),
    ctx.store.listSteps(run.id),
  ]);
  const waits =
    escalations.some((e) => e.status === 'open') ||
    questions.some((q) => q.answer === null) ||
    confirmations.some((c) => c.status === 'pending') ||
    steps.some((step) => step.status === 'waiting');
  if (waits) return;
  // The run changed meanwhile (an answer resumed it): the escalation would be about nothing.
  if ((await ctx.store.getRun(run.id))?.status !== 'paused') return;
  await escalate(ctx, {
    runId: run.id,
    planVersion: run.currentPlanVersion,
    stepId: null,
    kind: 'driver-failed',
    message: 'the run was paused with nothing left for anyone to answer',
    pauseFrom: [],
  });
}

/**
 * A wait handed to someone (Reassign) reminds that person by name, whoever else its message pings; the
 * copy posted again says whom it waits on, as the first post does.
 */
async function pingAddressee(ctx: AgentContext, run: RunRecord, kind: WaitKind, key: string): Promise<WaitAddressee | undefined> {
  const addressee = currentAddressee(await ctx.store.listEvents(run.id), kind, key);
  if (addressee) await ctx.thread.surface.notify(run, words`${person(addressee.to)} this is still waiting on you (${person(addressee.by)} handed it to you).`);
  return addressee;
}

/** The approvers by name, for a reminder, when there are few enough to name. */
function approverPings(settings: HousekeepingSettings): Text {
  const approvers = settings.approvers ?? [];
  if (approvers.length === 0 || approvers.length > MAX_PINGED) return '';
  const parts: TextPart[] = approvers.flatMap((id) => [person(id), ' ']);
  return parts;
}

/** Seconds as a person says them: "45 seconds", "30 minutes", "2 hours", "1 day". */
export function duration(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, unit] of units) {
    if (seconds >= size) {
      const count = Math.floor(seconds / size);
      return `${count} ${unit}${count === 1 ? '' : 's'}`;
    }
  }
  const count = Math.max(0, Math.floor(seconds));
  return `${count} second${count === 1 ? '' : 's'}`;
}

/** The executor times a step out after TANDEM_STEP_TIMEOUT_S; one running twice that long was probably left by a dead process. */
async function reportStuckSteps(ctx: AgentContext, run: RunRecord, now: Date): Promise<void> {
  const limitMs = 2 * ctx.config.settings.budgets.stepTimeoutS * 1000;
  const stuck = (await ctx.store.listSteps(run.id)).filter(
    (step) => step.status === 'running' && step.startedAt && now.getTime() - step.startedAt.getTime() > limitMs,
  );
  for (const step of stuck) {
    const key = `v${step.planVersion}/${step.stepId}#${step.attempt}`;
    if (!(await ctx.store.claimReminder({ runId: run.id, kind: 'stuck-step', key }))) continue;
    const runningMin = minutesBetween(step.startedAt!, now);
    ctx.logger.warn(
      { runId: run.id, planVersion: step.planVersion, stepId: step.stepId, attempt: step.attempt, leaseOwner: step.leaseOwner, runningMin },
      'step looks stuck',
    );
    await ctx.thread.surface.notify(
      run,
      `Step ${step.stepId} (${step.title}) has been running for ${runningMin} minutes, more than twice its ${ctx.config.settings.budgets.stepTimeoutS}-second limit; the process running it may have died. ` +
        'Once its lease runs out another replica adopts the run (or a restart picks it up) and settles the step: a read runs again, and a write that may have happened is checked or handed to you to decide.',
    );
  }
}

function minutesBetween(from: Date, to: Date): number {
  return Math.floor((to.getTime() - from.getTime()) / MINUTE);
}
