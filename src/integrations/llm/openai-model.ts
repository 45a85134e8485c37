import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import type { Logger } from '../../observability/logger.ts';
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
import { readCompletion, tokenLimit, toOpenAiMessages } from './openai-wire.ts';

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

type ResponseFormat = ReturnType<typeof zodResponseFormat> | { type: 'json_object' };

/** One model on one server: the SDK client, and how failures name it. */
interface OpenAiTarget {
  client: OpenAI;
  model: string;
  /** A server other than api.openai.com (Ollama, vLLM, llama.cpp). */
  compatible: boolean;
  where: FailureContext;
}

export function createOpenAiModel(options: OpenAiModelOptions): ChatModel {
  const target = openAiTarget(options);
  // Set once a server has rejected json_schema and JSON mode worked; later calls go straight to JSON mode.
  let jsonSchemaUnsupported = false;

  return {
    provider: 'openai',
    model: options.model,
    converse: (request) => converse(target, request),
    async answer(request) {
      const format = zodResponseFormat(request.schema, formatName(request.schemaName));
      try {
        if (!jsonSchemaUnsupported) {
          try {
            return await send(target, request, request.system, format);
          } catch (error) {
            if (!rejectsJsonSchema(error)) throw error;
          }
        }
        const answer = await send(target, request, `${request.system}\n\n${jsonOnlyInstruction(format.json_schema.schema)}`, { type: 'json_object' });
        if (!jsonSchemaUnsupported) {
          jsonSchemaUnsupported = true;
          options.logger?.warn(
            { model: options.model, service: target.where.service },
            'server rejected json_schema output; using JSON mode with the schema in the prompt from now on',
          );
        }
        return answer;
      } catch (error) {
        // The caller cancelled: hand back its own reason, this is not the model failing.
        if (request.signal?.aborted) throw request.signal.reason;
        throw toLlmError(error, target.where);
      }
    },
  };
}

function openAiTarget(options: OpenAiModelOptions): OpenAiTarget {
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
  const service = compatible ? `the OpenAI-compatible server at ${hostOf(options.baseURL!)}` : 'OpenAI';
  return { client, model: options.model, compatible, where: { provider: 'openai', model: options.model, service, timeoutMs, maxRetries, errors: OpenAI } };
}

/**
 * Chat Completions with the schema as response_format. We parse the content ourselves rather than
 * through chat.completions.parse(), which throws away the raw text the repair round needs.
 */
async function send(target: OpenAiTarget, request: ChatModelRequest, system: string, format: ResponseFormat): Promise<ChatModelAnswer> {
  const completion = await target.client.chat.completions.create(
    {
      model: target.model,
      messages: [{ role: 'system', content: system }, ...request.messages],
      response_format: format,
      ...tokenLimit(request.maxOutputTokens, target.compatible),
    },
    { signal: request.signal },
  );
  return readCompletion(completion, target.where);
}

/** Chat Completions with `tools`: the model answers in text or with tool_calls. */
async function converse(target: OpenAiTarget, request: ChatModelToolRequest): Promise<ChatModelToolAnswer> {
  try {
    const completion = await target.client.chat.completions.create(
      {
        model: target.model,
        messages: [{ role: 'system', content: request.system }, ...request.messages.flatMap(toOpenAiMessages)],
        tools: request.tools.map((tool) => ({
          type: 'function' as const,
          function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
        })),
        tool_choice: request.toolChoice,
        ...tokenLimit(request.maxOutputTokens, target.compatible),
      },
      { signal: request.signal },
    );
    return readCompletion(completion, target.where);
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason;
    throw toLlmError(error, target.where);
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
