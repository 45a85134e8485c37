/**
 * The periodic sweep: reminds approvers of a waiting plan and expires it, re-pings open escalations,
 * and reports steps that look stuck. Every replica sweeps; the store's claimReminder lets each message
 * go out once, and finishRun's conditional transition lets one replica expire a plan.
 */
import type { AgentContext, HousekeepingSettings } from './context.ts';
import { escalationOffer } from './execution/escalation-offer.ts';
import type { RunRecord, RunStatus } from './ports/run-store.ts';
import { finishRun } from './run-ending.ts';

export const DEFAULT_HOUSEKEEPING: HousekeepingSettings = { approvalRemindMin: 30, approvalExpireMin: 1440, escalationRepingMin: 60 };

/** Runs that can wait on people or hold running steps. */
const SWEPT: readonly RunStatus[] = ['awaiting-approval', 'executing', 'paused', 'rolling-back'];
/** Far more than are ever waiting at once; the newest come first. */
const SWEEP_LIMIT = 1000;
const MINUTE = 60_000;

export async function runHousekeeping(ctx: AgentContext, now: Date): Promise<void> {
  const settings = { ...DEFAULT_HOUSEKEEPING, ...ctx.settings.housekeeping };
  const runs = await ctx.store.listRuns({ limit: SWEEP_LIMIT, statuses: SWEPT });
  const checks = [remindOrExpireApproval, repingEscalations, repingConfirmations, reportStuckSteps];
  for (const run of runs) {
    for (const check of checks) {
      // One bad run (or one failing check) must not stop the sweep.
      await check(ctx, run, now, settings).catch((error: unknown) => ctx.logger.warn({ runId: run.id, err: error }, `housekeeping: ${check.name} failed`));
    }
  }
}

async function remindOrExpireApproval(ctx: AgentContext, run: RunRecord, now: Date, settings: HousekeepingSettings): Promise<void> {
  if (run.status !== 'awaiting-approval' || run.currentPlanVersion === null) return;
  const version = await ctx.store.getPlanVersion(run.id, run.currentPlanVersion);
  if (!version) return;
  const waited = minutesBetween(version.createdAt, now);
  if (waited >= settings.approvalExpireMin) {
    const reason = `Approval expired after ${settings.approvalExpireMin} minutes; nothing ran.`;
    if (await finishRun(ctx, run.id, 'rejected', reason, ['awaiting-approval'])) {
      await ctx.store.appendEvent(run.id, 'plan-expired', { version: version.version, afterMinutes: settings.approvalExpireMin });
    }
    return;
  }
  if (waited < settings.approvalRemindMin) return;
  if (!(await ctx.store.claimReminder({ runId: run.id, kind: 'approval-reminder', key: `v${version.version}` }))) return;
  const left = settings.approvalExpireMin - waited;
  await ctx.surface.notify(
    run,
    `Still waiting for an approver for plan v${version.version} (proposed ${waited} minutes ago). Nothing runs until someone approves it; it expires in ${left} minutes.`,
  );
}

/** Once per interval: the first re-ping REPING minutes after the escalation opened, the next at 2 × REPING, … */
async function repingEscalations(ctx: AgentContext, run: RunRecord, now: Date, settings: HousekeepingSettings): Promise<void> {
  const open = (await ctx.store.listEscalations(run.id)).filter((escalation) => escalation.status === 'open');
  for (const escalation of open) {
    const waited = minutesBetween(escalation.createdAt, now);
    const interval = Math.floor(waited / settings.escalationRepingMin);
    if (interval < 1) continue;
    if (!(await ctx.store.claimReminder({ runId: run.id, kind: 'escalation-reping', key: `${escalation.id}#${interval}` }))) continue;
    // The escalation again, buttons and all, at the bottom of the thread where people will see it.
    const note = `Still waiting for a decision: this has been open for ${waited} minutes and the run stays paused until someone picks an answer.`;
    await ctx.surface.escalate(run, escalation, await escalationOffer(ctx, run, escalation, note));
  }
}

/**
 * A Confirm still pending is asked again at the bottom of the thread, like an escalation: people see
 * it, and a request whose first post was lost (a crash right after it was stored) still arrives.
 */
async function repingConfirmations(ctx: AgentContext, run: RunRecord, now: Date, settings: HousekeepingSettings): Promise<void> {
  if (run.status !== 'paused' && run.status !== 'executing') return;
  const pending = (await ctx.store.listConfirmations(run.id)).filter(
    (confirmation) => confirmation.status === 'pending' && confirmation.planVersion === run.currentPlanVersion,
  );
  for (const confirmation of pending) {
    const interval = Math.floor(minutesBetween(confirmation.createdAt, now) / settings.escalationRepingMin);
    if (interval < 1) continue;
    if (!(await ctx.store.claimReminder({ runId: run.id, kind: 'confirm-reping', key: `v${confirmation.planVersion}/${confirmation.stepId}#${interval}` })))
      continue;
    await ctx.surface.confirmTarget(run, confirmation);
  }
}

/** The executor times a step out after TANDEM_STEP_TIMEOUT_S; one running twice that long was probably left by a dead process. */
async function reportStuckSteps(ctx: AgentContext, run: RunRecord, now: Date): Promise<void> {
  const limitMs = 2 * ctx.settings.budgets.stepTimeoutS * 1000;
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
    await ctx.surface.notify(
      run,
      `Step ${step.stepId} (${step.title}) has been running for ${runningMin} minutes, more than twice its ${ctx.settings.budgets.stepTimeoutS}-second limit; the process running it may have died. ` +
        'Once its lease runs out another replica adopts the run (or a restart picks it up) and settles the step: a read runs again, and a write that may have happened is checked or handed to you to decide.',
    );
  }
}

function minutesBetween(from: Date, to: Date): number {
  return Math.floor((to.getTime() - from.getTime()) / MINUTE);
}
