import type { ModelRoute } from '../../config/config.ts';
import type { LlmUsage } from '../../agent/ports/llm.ts';

export interface ModelPrice {
  /** USD per million input tokens. */
  input: number;
  /** USD per million output tokens. */
  output: number;
}

/**
 * List prices of a few current models, USD per million tokens (standard tier, no batch or cache
 * discounts). Operators override or extend them with TANDEM_MODEL_PRICES; an unknown model costs 0
 * rather than a guess, so a local model never shows up as spending money.
 */
export const BUILT_IN_PRICES: Readonly<Record<string, ModelPrice>> = {
  'openai:gpt-4o': { input: 2.5, output: 10 },
  'openai:gpt-4o-mini': { input: 0.15, output: 0.6 },
  'openai:gpt-4.1': { input: 2, output: 8 },
  'openai:gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'openai:gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'openai:gpt-5': { input: 1.25, output: 10 },
  'openai:gpt-5.1': { input: 1.25, output: 10 },
  'openai:gpt-5-mini': { input: 0.25, output: 2 },
  'openai:gpt-5-nano': { input: 0.05, output: 0.4 },
  'openai:o4-mini': { input: 1.1, output: 4.4 },
  'anthropic:claude-opus-4-5': { input: 5, output: 25 },
  'anthropic:claude-opus-4-1': { input: 15, output: 75 },
  'anthropic:claude-sonnet-4-5': { input: 3, output: 15 },
  'anthropic:claude-sonnet-4-0': { input: 3, output: 15 },
  'anthropic:claude-sonnet-4': { input: 3, output: 15 },
  'anthropic:claude-haiku-4-5': { input: 1, output: 5 },
  'anthropic:claude-3-5-haiku': { input: 0.8, output: 4 },
};

/** Dated snapshots (`gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`) cost what their family costs. */
const SNAPSHOT_SUFFIX = /-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

export function priceOf(route: ModelRoute, overrides: Readonly<Record<string, ModelPrice>> = {}): ModelPrice | undefined {
  const exact = `${route.provider}:${route.model}`;
  const family = `${route.provider}:${route.model.replace(SNAPSHOT_SUFFIX, '')}`;
  return overrides[exact] ?? overrides[family] ?? BUILT_IN_PRICES[exact] ?? BUILT_IN_PRICES[family];
}

export function costUsd(route: ModelRoute, usage: LlmUsage, overrides: Readonly<Record<string, ModelPrice>> = {}): number {
  const price = priceOf(route, overrides);
  if (!price) return 0;
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}
