/**
 * The periodic sweep over every wait for a person (openWaits: a plan's approval, a question, an
 * escalation, a Confirm): each is re-pinged once, and only once, after its `remindAt`; a plan or a Confirm
 * expires at its `expiresAt`, an escalation or a question does not (wait-reminders.ts). Expiry never runs
 * anything. It also reports steps that look stuck and runs that wait for nobody (stuck-runs.ts). Every
 * replica sweeps; the store's claimReminder lets each message go out once, and finishRun's conditional
 * transition lets one replica expire a plan.
 */
import { WAITING_RUN_STATUSES } from '../model/run-moves.ts';
import type { AgentContext, HousekeepingSettings } from '../context.ts';
import type { RunRecord } from '../ports/run-store.ts';
import type { Effect } from '../ports/effects.ts';
import { openWaits } from './open-waits.ts';
import { findHangingRun, reportStuckSteps } from './stuck-runs.ts';
import { DEFAULT_HOUSEKEEPING, type Wait } from './wait.ts';
import { remindOrExpire } from './wait-reminders.ts';

/** Far more than are ever waiting at once; the newest come first. */
const SWEEP_LIMIT = 1000;
/** The order a run's reminders go out in, as before there was one model: approval, escalations, questions, Confirms. */
const ORDER: readonly Wait['kind'][] = ['approval', 'escalation', 'question', 'confirm'];
const inOrder = (waits: readonly Wait[]) => [...waits].sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind));

/** Returns the drives of hanging runs (stuck-runs.ts), for the wiring to perform. */
export async function runHousekeeping(ctx: AgentContext, now: Date): Promise<Effect[]> {
  const settings = { ...DEFAULT_HOUSEKEEPING, ...ctx.config.settings.housekeeping };
  const runs = await ctx.store.listRuns({ limit: SWEEP_LIMIT, statuses: WAITING_RUN_STATUSES });
  // One bad run (or one failing wait or check) must not stop the sweep.
  const warn = (run: RunRecord, what: string) => (error: unknown) => ctx.logger.warn({ runId: run.id, err: error }, `housekeeping: ${what} failed`);
  const next: Effect[] = [];
  for (const run of runs) {
    const waits = await openWaits(ctx, run).catch((error: unknown): Wait[] | undefined => void warn(run, 'reading its waits')(error));
    for (const wait of inOrder(waits ?? [])) await remindOrExpire(ctx, wait, now, settings).catch(warn(run, `the ${wait.kind} wait`));
    await reportStuckSteps(ctx, run, now).catch(warn(run, 'reportStuckSteps'));
    if (waits) next.push(...((await findHangingRun(ctx, run, waits).catch(warn(run, 'findHangingRun'))) ?? []));
  }
  await sweepFailedUndos(ctx, now, settings, warn);
  return next;
}

/**
 * A failed undo (`rollback-failed`) waits for someone to undo it by hand after its rollback ended the run: it is
 * reminded once like any wait; past its time to live it expires as a wait expires (failed-undo-expiry.ts: stored as
 * expired, its copies' buttons gone, the thread told what remains undone), so no sweep, after a restart or on another
 * replica, looks at it again and no list shows it waiting. Read from the open escalations of that kind, however many
 * runs were aborted since.
 */
async function sweepFailedUndos(
  ctx: AgentContext,
  now: Date,
  settings: HousekeepingSettings,
  warn: (run: RunRecord, what: string) => (error: unknown) => void,
): Promise<void> {
  const open = await ctx.store.listOpenEscalations({ kind: 'rollback-failed', limit: SWEEP_LIMIT });
  const runIds = [...new Set(open.map((escalation) => escalation.runId))];
  for (const runId of runIds) {
    const run = await ctx.store.getRun(runId);
    // A run still rolling back is swept with the waiting runs above.
    if (run?.status !== 'aborted') continue;
    const waits = await openWaits(ctx, run).catch((error: unknown): Wait[] => (warn(run, 'reading its waits')(error), []));
    for (const wait of waits) {
      if (wait.subject.kind !== 'escalation' || wait.subject.escalation.kind !== 'rollback-failed') continue;
      await remindOrExpire(ctx, wait, now, settings).catch(warn(run, 'the failed undo'));
    }
  }
}
