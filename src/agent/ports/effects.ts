/**
 * What should happen next, as a value. A decision or planning returns it with what it decided (`Decided`); execution,
 * a sweep or resume names it; the wiring (src/agent/effects-runner.ts) is the one place that performs it, so this
 * process's run drivers and background work are reached from nowhere else (`.dependency-cruiser.cjs`:
 * only-the-wiring-drives). Owed messages are not an effect: they go through the one pump, `ctx.thread.owed`.
 */
import type { EscalationRecord, RunRecord, RunStatus } from './run-store.ts';
import type { Text } from '../text/text.ts';

/** People's answers to the questions a planner asked, given to the planner when it plans again. */
export interface AnswerForPlanner {
  question: string;
  answer: string;
  answeredBy: string | null;
}

/** How a driver is stopped (Effect `stop-driver`). */
export type DriverStop = 'cancel' | 'abort' | 'halt' | 'drain';

/** How a run a person (or an expiry) stopped ends (Effect `end-run`). */
export type RunEnd = 'cancelled' | 'aborted' | 'aborted-unattended';

export type Effect =
  /** Drive an executing run (or wake its driver); nothing happens for a run already driven elsewhere or no longer executing. */
  | { kind: 'drive'; runId: string }
  /**
   * Stop this process's driver of a run, if it has one; a `cancel` or `abort` also keeps the run from being driven
   * again here. `halt` cuts running steps (recorded as cancelled, or uncertain for a write); `drain` starts nothing
   * more and lets running steps end and be recorded as they really ended (a Replan: decision 041).
   */
  | { kind: 'stop-driver'; runId: string; stop: DriverStop }
  /**
   * A new plan for the run's remaining work, moving it from one of `from` to planning (a step failed and no person
   * need decide): resolves once the new version is proposed, or the run is paused for a person.
   */
  | { kind: 'replan'; runId: string; reason: Text; from: readonly RunStatus[] }
  /**
   * Stop this process's driver of the run (`cancel`, or `abort`), then end the run: `cancelled` (its unstarted steps
   * cancelled), `aborted` (what succeeded rolled back, newest first) or `aborted-unattended` (nothing more run, not even
   * the rollback). `why` opens its summary. Resolves once the run ended, or its rollback waits for a Confirm.
   */
  | { kind: 'end-run'; runId: string; end: RunEnd; why: Text }
  /** Plan the run again with every answer its planner's questions got, holding the run's lease meanwhile. */
  | { kind: 'plan'; run: RunRecord; answers: AnswerForPlanner[] }
  /**
   * Tell the thread that these escalations were closed by a decision on the run (the approval click that made them
   * moot): after the drive the same decision asked for, so the run does not wait on that Slack edit.
   */
  | { kind: 'tell-closed'; run: RunRecord; closed: readonly EscalationRecord[]; why: Text }
  /** Work that goes on after the caller returns: the agent's idle() waits for it, a failure is logged. */
  | { kind: 'in-background'; what: string; runId?: string; work: Promise<unknown> };

/**
 * What a decision or a planning step did, and what should happen next (decision 043): the wiring performs `next` in
 * order and only then lets go of `holding`, a run whose lease the callee took for it. A driver that `next` starts
 * therefore takes the run while it is still held here, and no peer adopts the run in between (decision 042).
 */
export interface Decided<R> {
  result: R;
  next: Effect[];
  holding?: string;
}

/** A decision's result with what should happen next, and no lease left to release. */
export const decided = <R>(result: R, next: Effect[] = []): Decided<R> => ({ result, next });

/**
 * Decides holding the run's lease when it can be had (peers then leave the run alone) and returns with the lease still
 * held, as `holding`, for the wiring to let go of once it performed `next`. The hold is let go of here if deciding throws.
 */
export async function decideHolding<R>(
  leases: { claim(runId: string): Promise<boolean>; release(runId: string): Promise<void> },
  runId: string,
  decide: () => Promise<Decided<R>>,
): Promise<Decided<R>> {
  const held = await leases.claim(runId).catch(() => false);
  try {
    const done = await decide();
    return held ? { ...done, holding: runId } : done;
  } catch (error) {
    if (held) await leases.release(runId).catch(() => undefined);
    throw error;
  }
}

export interface EffectsPort {
  /** Resolves once the effect took hold: a stopped driver has stopped, a replan is proposed; the others are under way at once. */
  perform(effect: Effect): Promise<void>;
}

export const drive = (runId: string): Effect => ({ kind: 'drive', runId });
export const stopDriver = (runId: string, stop: DriverStop): Effect => ({ kind: 'stop-driver', runId, stop });
export const endRun = (runId: string, end: RunEnd, why: Text): Effect => ({ kind: 'end-run', runId, end, why });
export const replanRun = (runId: string, reason: Text, from: readonly RunStatus[]): Effect => ({ kind: 'replan', runId, reason, from });
export const planAgain = (run: RunRecord, answers: AnswerForPlanner[]): Effect => ({ kind: 'plan', run, answers });
export const tellClosed = (run: RunRecord, closed: readonly EscalationRecord[], why: Text): Effect => ({ kind: 'tell-closed', run, closed, why });
export const inBackground = (what: string, work: Promise<unknown>, runId?: string): Effect => ({
  kind: 'in-background',
  what,
  work,
  ...(runId ? { runId } : {}),
});
