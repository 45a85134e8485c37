import type { z } from 'zod';

/** `planner-fallback`: a stronger model asked once when the planner fails (PLANNER_FALLBACK_MODEL). */
export type LlmRole = 'planner' | 'planner-fallback' | 'executor' | 'evaluator';

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

export interface LlmClient extends Partial<LlmToolClient> {
  generate<T>(request: LlmRequest<T>): Promise<LlmResponse<T>>;
  /** Whether a model is configured for this role at all (the bot still runs runbooks without one). */
  has(role: LlmRole): boolean;
}

/** A tool the model may call in a tool loop, as the model is shown it. */
export interface LlmToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the tool's arguments (an object). */
  inputSchema: Record<string, unknown>;
}

export interface LlmToolCall {
  /** The vendor's id for the call; its result is sent back under it. */
  id: string;
  name: string;
  /** The arguments as parsed JSON, or the raw text when the model sent something that is not JSON. */
  args: unknown;
}

/** One turn of a tool loop. Tool results answer the previous assistant turn's calls, in any order. */
export type LlmTurn =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls: LlmToolCall[] }
  | { role: 'tool'; results: { callId: string; content: string; isError?: boolean }[] };

export interface LlmToolRequest {
  role: LlmRole;
  system: string;
  messages: LlmTurn[];
  tools: LlmToolSpec[];
  /** `none`: the model must answer in text now (its call budget is spent); the tools stay declared because the history names them. */
  toolChoice?: 'auto' | 'none';
  maxOutputTokens?: number;
  runId?: string;
  signal?: AbortSignal;
}

export interface LlmToolResponse {
  /** What the model wrote (possibly empty when it only called tools). */
  text: string;
  /** The calls it asks for; none means it has answered. */
  toolCalls: LlmToolCall[];
  usage: LlmUsage;
  provider: string;
  model: string;
  costUsd: number;
}

/** Tool loops (agent_task). Optional on LlmClient: a client without it (a fixed bench planner) cannot run one. */
export interface LlmToolClient {
  /**
   * One turn of a tool loop: the model answers in text or asks for tool calls. Transport failures,
   * refusals and a cut-off answer are thrown as LlmError like generate(); usage is recorded once per call.
   */
  converse(request: LlmToolRequest): Promise<LlmToolResponse>;
}
