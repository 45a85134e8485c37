import { describe, expect, it } from 'vitest';
import { anyOf, confidenceTooLow, executionLimits, replanLimits, stepBudget, tokenBudget, wallClock } from '../../src/agent/model/budgets.ts';
import { said } from '../helpers/words.ts';

const budgets = { maxSteps: 5, maxReplans: 1, runTimeoutS: 60, stepTimeoutS: 10, maxTokens: 1000 };
const start = new Date('2026-01-01T00:00:00Z');
const snap = (patch: Partial<{ stepAttempts: number; replans: number; tokens: number; now: Date }> = {}) => ({
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
    expect(said(tokenBudget(budgets)(snap({ tokens: 1000 })))).toMatch(/token budget is spent \(1000 of 1000 tokens, TANDEM_MAX_TOKENS\)/);
    expect(wallClock(budgets)(snap({ now: new Date(start.getTime() + 59_000) }))).toBeNull();
    expect(said(wallClock(budgets)(snap({ now: new Date(start.getTime() + 60_000) })))).toMatch(/longer than 60s \(TANDEM_RUN_TIMEOUT_S\)/);
    expect(said(replanLimits(budgets)(snap({ replans: 1 })))).toMatch(/replan budget is spent/);
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
