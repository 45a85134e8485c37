import Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { LlmError } from '../../agent/model/errors.ts';
import type { LlmTurn } from '../../agent/ports/llm.ts';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type ChatModel,
  type ChatModelAnswer,
  type ChatModelToolAnswer,
  type ChatModelToolRequest,
} from './chat-model.ts';
import { answerTool, type AnswerTool } from './anthropic-tool.ts';
import { toLlmError, type FailureContext } from './sdk-errors.ts';

export interface AnthropicModelOptions {
  apiKey: string;
  /** Unset: api.anthropic.com. */
  baseURL?: string | undefined;
  model: string;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  fetch?: typeof globalThis.fetch | undefined;
}

/** The Messages API requires max_tokens; room for a large plan without inviting a runaway answer. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8192;

/** The part of a message we rely on; a server that answers something else is treated as down. */
const MessageWire = z.object({
  content: z.array(
    z.looseObject({ type: z.string(), text: z.string().optional(), id: z.string().optional(), name: z.string().optional(), input: z.unknown().optional() }),
  ),
  stop_reason: z.string().nullish(),
  usage: z.object({
    input_tokens: z.number(),
    output_tokens: z.number(),
    cache_creation_input_tokens: z.number().nullish(),
    cache_read_input_tokens: z.number().nullish(),
  }),
});

export function createAnthropicModel(options: AnthropicModelOptions): ChatModel {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  // Everything explicit: the SDK would otherwise read ANTHROPIC_* variables behind the config's back.
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL ?? 'https://api.anthropic.com',
    timeout: timeoutMs,
    maxRetries,
    logLevel: 'off',
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const where: FailureContext = { provider: 'anthropic', model: options.model, service: 'Anthropic', timeoutMs, maxRetries, errors: Anthropic };

  function parse(message: unknown) {
    const wire = MessageWire.safeParse(message);
    if (!wire.success) {
      throw new LlmError('unavailable', `Anthropic (model ${options.model}) answered with something that is not a message.`, {
        provider: 'anthropic',
        model: options.model,
      });
    }
    const { content, stop_reason: stop, usage: u } = wire.data;
    const usage = {
      inputTokens: u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0),
      outputTokens: u.output_tokens,
    };
    return { content, stop, usage };
  }

  function read(message: unknown, tool: AnswerTool): ChatModelAnswer {
    const { content, stop, usage } = parse(message);
    const call = content.find((block) => block.type === 'tool_use' && block.name === tool.name);
    const prose = content.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');
    // Without the tool call (a proxy that ignores tools), the text may still hold the JSON answer.
    const text = call ? tool.answerText(call.input) : prose;
    if (stop === 'refusal') return { kind: 'refused', text: prose || 'the model declined to answer', usage };
    if (stop === 'max_tokens' || stop === 'model_context_window_exceeded') return { kind: 'truncated', text, usage };
    return { kind: 'answered', text, usage };
  }

  /** Messages with `tools`: the model answers in text or with tool_use blocks. */
  async function converse(request: ChatModelToolRequest): Promise<ChatModelToolAnswer> {
    try {
      const message = await client.messages.create(
        {
          model: options.model,
          max_tokens: request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
          system: request.system,
          messages: request.messages.map(toAnthropicMessage),
          tools: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            input_schema: { ...tool.inputSchema, type: 'object' as const },
          })),
          tool_choice: { type: request.toolChoice },
        },
        { signal: request.signal },
      );
      const { content, stop, usage } = parse(message);
      const text = content.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('');
      const toolCalls = content
        .filter((block) => block.type === 'tool_use')
        .map((block) => ({ id: block.id ?? '', name: block.name ?? '', args: block.input }));
      if (stop === 'refusal') return { kind: 'refused', text: text || 'the model declined to answer', toolCalls, usage };
      if (stop === 'max_tokens' || stop === 'model_context_window_exceeded') return { kind: 'truncated', text, toolCalls, usage };
      return { kind: 'answered', text, toolCalls, usage };
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw toLlmError(error, where);
    }
  }

  return {
    provider: 'anthropic',
    model: options.model,
    converse,
    async answer(request) {
      const tool = answerTool(request.schema, request.schemaName);
      try {
        const message = await client.messages.create(
          {
            model: options.model,
            max_tokens: request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
            system: request.system,
            messages: request.messages,
            tools: [tool.definition],
            tool_choice: { type: 'tool', name: tool.name },
          },
          { signal: request.signal },
        );
        return read(message, tool);
      } catch (error) {
        // The caller cancelled: hand back its own reason, this is not the model failing.
        if (request.signal?.aborted) throw request.signal.reason;
        throw toLlmError(error, where);
      }
    },
  };
}

/** Tool results go back as tool_result blocks in a user turn; tool_use input must be an object. */
function toAnthropicMessage(turn: LlmTurn): Anthropic.MessageParam {
  if (turn.role === 'user') return { role: 'user', content: turn.content };
  if (turn.role === 'tool') {
    return {
      role: 'user',
      content: turn.results.map((result) => ({
        type: 'tool_result' as const,
        tool_use_id: result.callId,
        content: result.content,
        ...(result.isError ? { is_error: true } : {}),
      })),
    };
  }
  const input = (args: unknown) => (args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : { value: args });
  return {
    role: 'assistant',
    content: [
      ...(turn.content ? [{ type: 'text' as const, text: turn.content }] : []),
      ...turn.toolCalls.map((call) => ({ type: 'tool_use' as const, id: call.id, name: call.name, input: input(call.args) })),
    ],
  };
}
