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

/** Aborted runs looked at for a failed undo still waiting: the newest, as few are aborted at once. */
const RECENTLY_ABORTED = 50;

/**
 * A failed undo (`rollback-failed`) waits for someone to undo it by hand after its rollback ended the run: it is
 * reminded once like any wait, among the runs aborted within its time to live; past that, it is left (expired).
 */
async function sweepFailedUndos(
  ctx: AgentContext,
  now: Date,
  settings: HousekeepingSettings,
  warn: (run: RunRecord, what: string) => (error: unknown) => void,
): Promise<void> {
  const since = now.getTime() - settings.waitTtlS * 1000;
  const runs = await ctx.store.listRuns({ limit: RECENTLY_ABORTED, statuses: ['aborted'] });
  for (const run of runs.filter((r) => (r.finishedAt?.getTime() ?? 0) >= since)) {
    // Most aborted runs have none: one read of their escalations says so, before the reads of all their waits.
    const escalations = await ctx.store.listEscalations(run.id).catch((error: unknown) => (warn(run, 'reading its escalations')(error), []));
    if (!escalations.some((e) => e.status === 'open' && e.kind === 'rollback-failed')) continue;
    const waits = await openWaits(ctx, run).catch((error: unknown): Wait[] => (warn(run, 'reading its waits')(error), []));
    for (const wait of waits.filter((w) => w.subject.kind === 'escalation' && w.subject.escalation.kind === 'rollback-failed'))
      await remindOrExpire(ctx, wait, now, settings).catch(warn(run, 'the failed undo'));
  }
}
