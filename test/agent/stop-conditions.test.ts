import { describe, expect, it } from 'vitest';
import { anyOf, confidenceTooLow, executionLimits, replanLimits, runClockStart, stepBudget, tokenBudget, wallClock } from '../../src/agent/model/budgets.ts';
import type { Text } from '../../src/agent/text/text.ts';
import { mrkdwn } from '../../src/bot/views/text.ts';
import { said } from '../helpers/words.ts';

const budgets = { maxSteps: 5, maxReplans: 1, runTimeoutS: 60, stepTimeoutS: 10, maxTokens: 1000 };
const start = new Date('2026-01-01T00:00:00Z');
const snap = (patch: Partial<{ stepAttempts: number; replans: number; tokens: number; runStartedAt: Date | null; now: Date }> = {}) => ({
  stepAttempts: 0,
  replans: 0,
  tokens: 0,
  runStartedAt: start,
  now: start,
  ...patch,
});

describe('stop conditions', () => {
  it('each budget stops with a reason naming its setting', () => {
    expect(stepBudget(budgets)(snap({ stepAttempts: 9 }))).toBeNull();
    expect(said(stepBudget(budgets)(snap({ stepAttempts: 10 })))).toMatch(/step budget is spent.*TANDEM_MAX_STEPS/);
    expect(said(tokenBudget(budgets)(snap({ tokens: 1000 })))).toMatch(/token budget is spent \(TANDEM_MAX_TOKENS\)/);
    expect(wallClock(budgets)(snap({ now: new Date(start.getTime() + 59_000) }))).toBeNull();
    expect(said(wallClock(budgets)(snap({ now: new Date(start.getTime() + 60_000) })))).toMatch(/longer than 60s \(TANDEM_RUN_TIMEOUT_S\)/);
    expect(said(replanLimits(budgets)(snap({ replans: 1 })))).toMatch(/replan budget is spent/);
  });

  it('in the thread a spent budget reads as words: no token counts, formulas or setting names', () => {
    const thread = (reason: Text | null) => mrkdwn(reason ?? '');
    expect(thread(tokenBudget(budgets)(snap({ tokens: 1234 })))).toBe('the token budget is spent');
    expect(thread(stepBudget(budgets)(snap({ stepAttempts: 10 })))).toBe('the step budget is spent after 10 step attempts');
    expect(thread(replanLimits(budgets)(snap({ replans: 1 })))).toBe('the replan budget is spent after 1 replan');
    expect(thread(wallClock(budgets)(snap({ now: new Date(start.getTime() + 60_000) })))).toBe('the run took longer than 60s');
  });

  it("the run's clock starts at its first approval (a replan's keeps it); before any, no time is spent", () => {
    const at = (minutes: number) => new Date(start.getTime() + minutes * 60_000);
    const approvals = [
      { decision: 'rejected' as const, createdAt: at(1) },
      { decision: 'approved' as const, createdAt: at(90) },
      { decision: 'approved' as const, createdAt: at(95) },
    ];
    expect(runClockStart(approvals)).toEqual(at(90));
    expect(runClockStart([approvals[0]!])).toBeNull();
    // Approved 90 minutes after the mention, with a 60 s limit: 59 s later it may still go on.
    expect(wallClock(budgets)(snap({ runStartedAt: runClockStart(approvals), now: new Date(at(90).getTime() + 59_000) }))).toBeNull();
    expect(wallClock(budgets)(snap({ runStartedAt: null, now: at(600) }))).toBeNull();
  });

  it('compose: the first condition that fires gives the reason', () => {
    expect(executionLimits(budgets)(snap())).toBeNull();
    expect(said(executionLimits(budgets)(snap({ tokens: 5000, now: new Date(start.getTime() + 3_600_000) })))).toMatch(/token budget/);
    expect(
      anyOf(
        () => null,
        () => 'second',
      )(snap()),
    ).toBe('second');
  });

  it('confidence below the threshold is a reason to ask first', () => {
    expect(said(confidenceTooLow(0.59, 0.6))).toMatch(/0\.59 is below the threshold 0\.6/);
    expect(confidenceTooLow(0.6, 0.6)).toBeNull();
  });
});
