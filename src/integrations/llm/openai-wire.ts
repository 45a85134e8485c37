/**
 * Chat Completions as it goes over the wire: our turns as OpenAI messages, and a completion read back
 * (checked with zod, since a compatible server may answer anything) as a ChatModel answer.
 */
import type OpenAI from 'openai';
import { z } from 'zod';
import { LlmError } from '../../agent/model/errors.ts';
import type { LlmToolCall, LlmTurn } from '../../agent/ports/llm.ts';
import type { ChatModelToolAnswer } from './chat-model.ts';

/** The part of a chat completion we rely on; a server that answers something else is treated as down. */
const CompletionWire = z.object({
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullish(),
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          tool_calls: z.array(z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) })).nullish(),
        }),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullish(),
});

/** A completion as an answer: refused (by the model or the content filter), truncated at the limit, or answered. */
export function readCompletion(completion: unknown, source: { service: string; model: string }): ChatModelToolAnswer {
  const wire = CompletionWire.safeParse(completion);
  if (!wire.success) {
    throw new LlmError('unavailable', `${source.service} (model ${source.model}) answered with something that is not a chat completion.`, {
      provider: 'openai',
      model: source.model,
    });
  }
  const choice = wire.data.choices[0]!;
  const usage = { inputTokens: wire.data.usage?.prompt_tokens ?? 0, outputTokens: wire.data.usage?.completion_tokens ?? 0 };
  const text = choice.message.content ?? '';
  const toolCalls = (choice.message.tool_calls ?? []).map((call): LlmToolCall => ({
    id: call.id,
    name: call.function.name,
    args: parseArguments(call.function.arguments),
  }));
  if (choice.message.refusal) return { kind: 'refused', text: choice.message.refusal, toolCalls, usage };
  if (choice.finish_reason === 'content_filter') return { kind: 'refused', text: 'the content filter stopped the answer', toolCalls, usage };
  if (choice.finish_reason === 'length') return { kind: 'truncated', text, toolCalls, usage };
  return { kind: 'answered', text, toolCalls, usage };
}

type OpenAiMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export function toOpenAiMessages(turn: LlmTurn): OpenAiMessage[] {
  if (turn.role === 'user') return [{ role: 'user', content: turn.content }];
  if (turn.role === 'tool') return turn.results.map((result) => ({ role: 'tool' as const, tool_call_id: result.callId, content: result.content }));
  const calls = turn.toolCalls.map((call) => ({
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {}) },
  }));
  return [{ role: 'assistant', content: turn.content || null, ...(calls.length ? { tool_calls: calls } : {}) }];
}

/** OpenAI's reasoning models refuse max_tokens; compatible servers mostly know only max_tokens. */
export function tokenLimit(limit: number | undefined, compatible: boolean): { max_tokens?: number; max_completion_tokens?: number } {
  if (limit === undefined) return {};
  return compatible ? { max_tokens: limit } : { max_completion_tokens: limit };
}

/** Arguments arrive as JSON text; text that is not JSON is kept as it is, for the tool's schema to reject. */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
