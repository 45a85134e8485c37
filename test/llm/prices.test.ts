import { describe, expect, it } from 'vitest';
import { costUsd, priceOf } from '../../src/integrations/llm/prices.ts';

describe('model prices', () => {
  it('prices dated snapshots like their family', () => {
    expect(priceOf({ provider: 'openai', model: 'gpt-4o-mini-2024-07-18' })).toEqual({ input: 0.15, output: 0.6 });
    expect(priceOf({ provider: 'anthropic', model: 'claude-haiku-4-5-20251001' })).toEqual({ input: 1, output: 5 });
  });

  it('costs an unknown model nothing rather than guessing', () => {
    expect(costUsd({ provider: 'openai', model: 'llama3.1:70b' }, { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(0);
  });

  it('lets the operator’s table win over the built-in one', () => {
    const overrides = { 'anthropic:claude-haiku-4-5': { input: 2, output: 4 } };
    expect(costUsd({ provider: 'anthropic', model: 'claude-haiku-4-5' }, { inputTokens: 1_000_000, outputTokens: 500_000 }, overrides)).toBe(4);
  });
});
