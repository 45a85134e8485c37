import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { LlmError } from '../../agent/errors.ts';
import type { Logger } from '../../observability/logger.ts';
import type { LlmToolCall, LlmTurn } from '../../agent/ports/llm.ts';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type ChatModel,
  type ChatModelAnswer,
  type ChatModelRequest,
  type ChatModelToolAnswer,
  type ChatModelToolRequest,
} from './chat-model.ts';
import { toLlmError, type FailureContext } from './sdk-errors.ts';
import { jsonOnlyInstruction } from './structured-output.ts';

export interface OpenAiModelOptions {
  /** Optional for local OpenAI-compatible servers, which usually ignore it. */
  apiKey?: string | undefined;
  /** Unset: api.openai.com. Set: any Chat Completions server (Ollama, vLLM, llama.cpp). */
  baseURL?: string | undefined;
  model: string;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  fetch?: typeof globalThis.fetch | undefined;
  logger?: Logger | undefined;
}

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

type ResponseFormat = ReturnType<typeof zodResponseFormat> | { type: 'json_object' };

export function createOpenAiModel(options: OpenAiModelOptions): ChatModel {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const compatible = options.baseURL !== undefined && hostOf(options.baseURL) !== 'api.openai.com';
  // Everything explicit: the SDK would otherwise read OPENAI_* variables behind the config's back.
  const client = new OpenAI({
    apiKey: options.apiKey ?? 'unused',
    baseURL: options.baseURL ?? 'https://api.openai.com/v1',
    organization: null,
    project: null,
    timeout: timeoutMs,
    maxRetries,
    logLevel: 'off',
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const where: FailureContext = {
    provider: 'openai',
    model: options.model,
    service: compatible ? `the OpenAI-compatible server at ${hostOf(options.baseURL!)}` : 'OpenAI',
    timeoutMs,
    maxRetries,
  };
  // Set once a server has rejected json_schema and JSON mode worked; later calls go straight to JSON mode.
  let jsonSchemaUnsupported = false;

  /**
   * Chat Completions with the schema as response_format. We parse the content ourselves rather than
   * through chat.completions.parse(), which throws away the raw text the repair round needs.
   */
  async function send(request: ChatModelRequest, system: string, format: ResponseFormat): Promise<ChatModelAnswer> {
    const limit = request.maxOutputTokens;
    const completion = await client.chat.completions.create(
      {
        model: options.model,
        messages: [{ role: 'system', content: system }, ...request.messages],
        response_format: format,
        // OpenAI's reasoning models refuse max_tokens; compatible servers mostly know only max_tokens.
        ...(limit === undefined ? {} : compatible ? { max_tokens: limit } : { max_completion_tokens: limit }),
      },
      { signal: request.signal },
    );
    return read(completion);
  }

  function read(completion: unknown): ChatModelToolAnswer {
    const wire = CompletionWire.safeParse(completion);
    if (!wire.success) {
      throw new LlmError('unavailable', `${where.service} (model ${options.model}) answered with something that is not a chat completion.`, {
        provider: 'openai',
        model: options.model,
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

  /** Chat Completions with `tools`: the model answers in text or with tool_calls. */
  async function converse(request: ChatModelToolRequest): Promise<ChatModelToolAnswer> {
    const limit = request.maxOutputTokens;
    try {
      const completion = await client.chat.completions.create(
        {
          model: options.model,
          messages: [{ role: 'system', content: request.system }, ...request.messages.flatMap(toOpenAiMessages)],
          tools: request.tools.map((tool) => ({
            type: 'function' as const,
            function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
          })),
          tool_choice: request.toolChoice,
          ...(limit === undefined ? {} : compatible ? { max_tokens: limit } : { max_completion_tokens: limit }),
        },
        { signal: request.signal },
      );
      return read(completion);
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw toLlmError(error, where);
    }
  }

  return {
    provider: 'openai',
    model: options.model,
    converse,
    async answer(request) {
      const format = zodResponseFormat(request.schema, formatName(request.schemaName));
      try {
        if (!jsonSchemaUnsupported) {
          try {
            return await send(request, request.system, format);
          } catch (error) {
            if (!rejectsJsonSchema(error)) throw error;
          }
        }
        const answer = await send(request, `${request.system}\n\n${jsonOnlyInstruction(format.json_schema.schema)}`, { type: 'json_object' });
        if (!jsonSchemaUnsupported) {
          jsonSchemaUnsupported = true;
          options.logger?.warn(
            { model: options.model, service: where.service },
            'server rejected json_schema output; using JSON mode with the schema in the prompt from now on',
          );
        }
        return answer;
      } catch (error) {
        // The caller cancelled: hand back its own reason, this is not the model failing.
        if (request.signal?.aborted) throw request.signal.reason;
        throw toLlmError(error, where);
      }
    },
  };
}

type OpenAiMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

function toOpenAiMessages(turn: LlmTurn): OpenAiMessage[] {
  if (turn.role === 'user') return [{ role: 'user', content: turn.content }];
  if (turn.role === 'tool') return turn.results.map((result) => ({ role: 'tool' as const, tool_call_id: result.callId, content: result.content }));
  const calls = turn.toolCalls.map((call) => ({
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {}) },
  }));
  return [{ role: 'assistant', content: turn.content || null, ...(calls.length ? { tool_calls: calls } : {}) }];
}

/** Arguments arrive as JSON text; text that is not JSON is kept as it is, for the tool's schema to reject. */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A 400 that names the response format (or has no body at all) is a server without json_schema
 * support. If JSON mode then fails too, the 400 was about something else and that error is reported.
 */
function rejectsJsonSchema(error: unknown): boolean {
  return error instanceof OpenAI.BadRequestError && /response_format|json_schema|schema|no body/i.test(error.message);
}

function formatName(schemaName: string): string {
  return schemaName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'answer';
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
