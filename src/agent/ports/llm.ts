import type { z } from 'zod';

export type LlmRole = 'planner' | 'executor' | 'evaluator';

export interface LlmMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface LlmRequest<T> {
  role: LlmRole;
  system: string;
  messages: LlmMessage[];
  /**
   * The answer's shape. Schemas passed here stay inside what strict structured output accepts:
   * every property required (use .nullable() rather than .optional()), no open records.
   */
  schema: z.ZodType<T>;
  schemaName: string;
  maxOutputTokens?: number;
  runId?: string;
  signal?: AbortSignal;
}

export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface LlmResponse<T> {
  value: T;
  usage: LlmUsage;
  provider: string;
  model: string;
  costUsd: number;
}

export interface LlmClient {
  generate<T>(request: LlmRequest<T>): Promise<LlmResponse<T>>;
  /** Whether a model is configured for this role at all (the bot still runs runbooks without one). */
  has(role: LlmRole): boolean;
}
