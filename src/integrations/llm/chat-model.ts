import type { z } from 'zod';
import type { LlmMessage, LlmToolCall, LlmToolSpec, LlmTurn, LlmUsage } from '../../agent/ports/llm.ts';
import type { Provider } from '../../config/config.ts';

/** One structured-output call, already redacted, as a vendor adapter receives it. */
export interface ChatModelRequest {
  system: string;
  messages: LlmMessage[];
  schema: z.ZodType<unknown>;
  schemaName: string;
  maxOutputTokens: number | undefined;
  signal: AbortSignal | undefined;
}

/**
 * What came back, before it is checked against the schema. `text` is the model's answer as JSON text
 * (for Anthropic tool use, the tool input serialised), kept so a repair round can show it to the model.
 */
export type ChatModelAnswer =
  | { kind: 'answered'; text: string; usage: LlmUsage }
  | { kind: 'refused'; text: string; usage: LlmUsage }
  | { kind: 'truncated'; text: string; usage: LlmUsage };

/** One turn of a tool loop, already redacted, as a vendor adapter receives it. */
export interface ChatModelToolRequest {
  system: string;
  messages: LlmTurn[];
  tools: LlmToolSpec[];
  toolChoice: 'auto' | 'none';
  maxOutputTokens: number | undefined;
  signal: AbortSignal | undefined;
}

/** The model's turn: text and the tool calls it asks for, or a refusal or cut-off answer. */
export type ChatModelToolAnswer =
  | { kind: 'answered'; text: string; toolCalls: LlmToolCall[]; usage: LlmUsage }
  | { kind: 'refused' | 'truncated'; text: string; toolCalls: LlmToolCall[]; usage: LlmUsage };

/**
 * The narrow interface each vendor adapter implements: translate the call to the vendor's wire format
 * and back. Transport failures (timeout, 429, 5xx, unreachable, garbage) are thrown as LlmError.
 */
export interface ChatModel {
  readonly provider: Provider;
  readonly model: string;
  answer(request: ChatModelRequest): Promise<ChatModelAnswer>;
  converse(request: ChatModelToolRequest): Promise<ChatModelToolAnswer>;
}

/** Chat-bot sized defaults: a person is waiting in a thread, not a batch job. */
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;
