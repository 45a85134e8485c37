/**
 * Budgets as composable stop conditions, in one file the supervisor reads. Each condition looks at
 * a snapshot of the run and says why it must stop, or null.
 */
import { setting, type Text, words } from '../text/text.ts';
export interface Budgets {
  maxSteps: number;
  maxReplans: number;
  runTimeoutS: number;
  stepTimeoutS: number;
  maxTokens: number;
}

export interface BudgetSnapshot {
  /** Forward step attempts started in this run, all plan versions. */
  stepAttempts: number;
  replans: number;
  tokens: number;
  /** When the run's clock started (runClockStart); null: nothing of it was approved yet, so no time is spent. */
  runStartedAt: Date | null;
  now: Date;
}

/** Why the run must stop, naming the setting that sets the limit; null to go on. */
export type StopCondition = (snapshot: BudgetSnapshot) => Text | null;

/** Each plan holds at most maxSteps steps (validation); a run may spend that again for each replan it is allowed. */
export const stepBudget =
  (budgets: Budgets): StopCondition =>
  (s) => {
    const limit = budgets.maxSteps * (budgets.maxReplans + 1);
    return s.stepAttempts >= limit
      ? words`the step budget is spent (${s.stepAttempts} step attempts; ${setting('max-steps')} × (${setting('max-replans')} + 1) = ${limit})`
      : null;
  };

export const tokenBudget =
  (budgets: Budgets): StopCondition =>
  (s) =>
    s.tokens >= budgets.maxTokens ? words`the token budget is spent (${s.tokens} of ${budgets.maxTokens} tokens, ${setting('max-tokens')})` : null;

export const wallClock =
  (budgets: Budgets): StopCondition =>
  (s) => {
    if (!s.runStartedAt) return null;
    const elapsedS = (s.now.getTime() - s.runStartedAt.getTime()) / 1000;
    return elapsedS >= budgets.runTimeoutS ? words`the run took longer than ${budgets.runTimeoutS}s (${setting('run-timeout')})` : null;
  };

/**
 * When a run's time limit starts to count: its first approval that let a version run (a person's click or an
 * auto-run), not the mention that asked for it, since a plan may wait for its approval up to
 * TANDEM_APPROVAL_TTL_S. A replanned version's approval keeps the first one's clock. Stored, so a restart
 * keeps it. Null before any approval.
 */
export function runClockStart(approvals: readonly { decision: 'approved' | 'rejected'; createdAt: Date }[]): Date | null {
  let first: Date | null = null;
  for (const approval of approvals) if (approval.decision === 'approved' && (!first || approval.createdAt < first)) first = approval.createdAt;
  return first;
}

/** Checked before a replan: a run gets at most maxReplans new plans from the planner. */
export const replanBudget =
  (budgets: Budgets): StopCondition =>
  (s) =>
    s.replans >= budgets.maxReplans ? words`the replan budget is spent (${s.replans} of ${budgets.maxReplans}, ${setting('max-replans')})` : null;

export function anyOf(...conditions: StopCondition[]): StopCondition {
  return (snapshot) => {
    for (const condition of conditions) {
      const reason = condition(snapshot);
      if (reason) return reason;
    }
    return null;
  };
}

/** What stops a run from starting another step. */
export const executionLimits = (budgets: Budgets): StopCondition => anyOf(stepBudget(budgets), tokenBudget(budgets), wallClock(budgets));

/** What stops a run from asking for another plan. */
export const replanLimits = (budgets: Budgets): StopCondition => anyOf(replanBudget(budgets), tokenBudget(budgets), wallClock(budgets));

/** How long one step may take before its AbortSignal fires. */
export function stepTimeoutMs(budgets: Budgets): number {
  return budgets.stepTimeoutS * 1000;
}

/** Milliseconds left before the run's wall clock runs out. */
export function runTimeLeftMs(budgets: Budgets, runStartedAt: Date, now: Date): number {
  return runStartedAt.getTime() + budgets.runTimeoutS * 1000 - now.getTime();
}

export function confidenceTooLow(confidence: number, threshold: number): Text | null {
  return confidence < threshold
    ? words`the planner's confidence ${confidence.toFixed(2)} is below the threshold ${threshold} (${setting('confidence-threshold')})`
    : null;
}
