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

/**
 * Why the run must stop, null to go on. The setting that sets the limit is an aside in parentheses, so the
 * operator's view names it and the thread leaves it out; no token counts or formulas, which say nothing to the
 * people in the thread (the run's tokens are in `tandem show`).
 */
export type StopCondition = (snapshot: BudgetSnapshot) => Text | null;

/** Each plan holds at most maxSteps steps (validation); a run may spend that again for each replan it is allowed. */
export const stepBudget =
  (budgets: Budgets): StopCondition =>
  (s) => {
    const limit = budgets.maxSteps * (budgets.maxReplans + 1);
    return s.stepAttempts >= limit ? words`the step budget is spent after ${s.stepAttempts} step attempts (${setting('max-steps')})` : null;
  };

export const tokenBudget =
  (budgets: Budgets): StopCondition =>
  (s) =>
    s.tokens >= budgets.maxTokens ? words`the token budget is spent (${setting('max-tokens')})` : null;

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

/** A stretch of time; `to` null: it has not ended. */
export interface TimeSpan {
  from: Date;
  to: Date | null;
}

/** What the run's clock needs besides its start, all of it stored: when the run waited for people, and when its steps ran. */
export interface RunClockFacts {
  /** Each wait for a person (an escalation, a question, a Confirm, a new plan version's approval); `to` null while it is open. */
  waits: readonly TimeSpan[];
  /** Each step attempt, from its claim to its end; `to` null while it runs. */
  working: readonly TimeSpan[];
}

/**
 * The time a run spent on its budget by `now` (ms): from its clock's start (`runClockStart`), less the time it
 * could only wait for people — some wait open and none of its steps running. A step that runs while another
 * waits for its answer spends time; waits open together count once; a wait still open counts up to `now`.
 * Never negative, never more than the wall time since the start, and never less at a later `now`.
 */
export function runTimeSpentMs(start: Date, now: Date, facts: RunClockFacts): number {
  const from = start.getTime();
  const to = now.getTime();
  if (to <= from) return 0;
  const waits = mergedSpans(facts.waits, from, to);
  const working = mergedSpans(facts.working, from, to);
  const onlyWaiting = totalMs(waits) - overlapMs(waits, working);
  return to - from - onlyWaiting;
}

/** The run's clock start moved on by the time it only waited for people: the wall clock counts from here at `now`. */
export function runClockAt(start: Date, now: Date, facts: RunClockFacts): Date {
  return now <= start ? start : new Date(now.getTime() - runTimeSpentMs(start, now, facts));
}

type Span = readonly [from: number, to: number];

/** The spans cut to [from, to] and joined where they touch or overlap, in order. */
function mergedSpans(spans: readonly TimeSpan[], from: number, to: number): Span[] {
  const cut = spans
    .map((span): Span => [Math.max(from, span.from.getTime()), Math.min(to, span.to?.getTime() ?? to)])
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [start, end] of cut) {
    const last = merged.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

function totalMs(spans: readonly Span[]): number {
  return spans.reduce((sum, [start, end]) => sum + end - start, 0);
}

/** How long two lists of merged spans overlap. */
function overlapMs(a: readonly Span[], b: readonly Span[]): number {
  let sum = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    sum += Math.max(0, Math.min(a[i]![1], b[j]![1]) - Math.max(a[i]![0], b[j]![0]));
    if (a[i]![1] < b[j]![1]) i++;
    else j++;
  }
  return sum;
}

/** Checked before a replan: a run gets at most maxReplans new plans from the planner. */
export const replanBudget =
  (budgets: Budgets): StopCondition =>
  (s) =>
    s.replans >= budgets.maxReplans
      ? words`the replan budget is spent after ${s.replans === 1 ? '1 replan' : `${s.replans} replans`} (${setting('max-replans')})`
      : null;

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
