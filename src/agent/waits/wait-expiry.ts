/**
 * What a wait's time to live does (CONTRACT §5), one path for the housekeeping sweep and for a click: at its
 * `expiresAt` a plan can no longer be approved (it can only be proposed again), a Confirm aborts its step
 * (target-decision.ts says what that leaves running) and a failed undo stops waiting (failed-undo-expiry.ts); an
 * escalation that asks for a decision, or a question, does not expire. Expiry never runs anything.
 *
 * The sweep passes every min(60 s, TTL/2), and longer after a restart, so a click can come after `expiresAt` and
 * before the sweep: the click expires the wait itself (decisions/answer-wait.ts), with the sweep's effects, and is
 * refused, so an old click never runs a plan or a step.
 */
import { movesFrom } from '../model/run-moves.ts';
import type { AgentContext, HousekeepingSettings } from '../context.ts';
import { finishRun } from '../execution/run-ending.ts';
import { expireConfirmation } from '../decisions/target-decision.ts';
import { expireFailedUndo } from './failed-undo-expiry.ts';
import { words } from '../text/text.ts';
import { DEFAULT_HOUSEKEEPING, stageAt, type Wait } from './wait.ts';
import { waitOf } from './wait-of.ts';

/** The reminder and expiry times in force: the settings over the defaults. */
export function waitTimes(ctx: Pick<AgentContext, 'config'>): HousekeepingSettings {
  return { ...DEFAULT_HOUSEKEEPING, ...ctx.config.settings.housekeeping };
}

/**
 * Expires the wait when `now` is past its `expiresAt` and its kind expires (a plan's approval, a Confirm, a failed undo). True
 * when it was due: expired here, or by whoever got there first (a peer's sweep, another click).
 */
export async function expireIfDue(ctx: AgentContext, wait: Wait, now: Date, settings: HousekeepingSettings): Promise<boolean> {
  if (stageAt(wait, now) !== 'expire') return false;
  if (wait.kind === 'approval') {
    await expireApproval(ctx, wait, settings);
    return true;
  }
  // A forward step's Confirm skips its step and what depends on it; a rollback's ends the run, the undos left named.
  if (wait.subject.kind === 'confirm') {
    await expireConfirmation(ctx, wait.subject.confirmation, duration(settings.waitTtlS));
    return true;
  }
  // A failed undo waits for someone to undo it by hand; past its time to live it is closed, and nothing is tried again.
  if (wait.subject.kind === 'escalation' && wait.subject.escalation.kind === 'rollback-failed') {
    await expireFailedUndo(ctx, wait.run, wait.subject.escalation, duration(settings.waitTtlS));
    return true;
  }
  return false;
}

/**
 * The wait whose time to live an answer to `wait` is bound by: its own for a plan's approval or a Confirm; for a
 * low-confidence escalation ("Approve anyway", Reject), the approval of the plan it doubts, since going ahead
 * from it approves that plan. Undefined for a wait that does not expire.
 */
export async function expiringWaitOf(ctx: AgentContext, wait: Wait): Promise<Wait | undefined> {
  if (wait.kind === 'approval' || wait.kind === 'confirm') return wait;
  if (wait.subject.kind !== 'escalation') return undefined;
  const { escalation } = wait.subject;
  if (escalation.kind !== 'low-confidence' || escalation.planVersion === null) return undefined;
  return waitOf(ctx, { kind: 'approval', runId: escalation.runId, planVersion: escalation.planVersion });
}

async function expireApproval(ctx: AgentContext, wait: Wait, settings: HousekeepingSettings): Promise<void> {
  const reason = words`The plan expired: nobody approved it within ${duration(settings.waitTtlS)}, and nothing ran. It can only be proposed again, as a fresh plan to approve.`;
  if (await finishRun(ctx, wait.run.id, 'expired', reason, movesFrom('expire'))) {
    await ctx.store.appendEvent(wait.run.id, 'plan-expired', { version: wait.planVersion!, afterMinutes: Math.round(settings.waitTtlS / 60) });
  }
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
