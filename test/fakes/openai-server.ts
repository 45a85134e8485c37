import type { IncomingHttpHeaders } from 'node:http';
import { startScriptedLlmServer, type RecordedRequest, type ScriptedLlmServer, type WireReply } from './scripted-llm-server.ts';

export type { RecordedRequest } from './scripted-llm-server.ts';

export interface FakeUsage {
  inputTokens: number;
  outputTokens: number;
}

/** One scripted answer of the fake Chat Completions server. Build them with `openAiReply`. */
export type FakeOpenAiReply =
  | { kind: 'content'; content: string; finishReason: 'stop' | 'length' | 'content_filter'; usage?: FakeUsage }
  | { kind: 'refusal'; refusal: string; usage?: FakeUsage }
  | { kind: 'status'; status: number; headers?: Record<string, string>; message?: string }
  | { kind: 'garbage'; body: string; contentType?: string }
  | { kind: 'stall'; ms: number; then?: FakeOpenAiReply }
  | { kind: 'reject-json-schema' }
  | { kind: 'tool-calls'; calls: FakeToolCall[]; content: string | null; usage?: FakeUsage };

/** A tool call the fake model makes; `rawArguments` sends that exact text instead of JSON of `args`. */
export interface FakeToolCall {
  name: string;
  args?: unknown;
  rawArguments?: string;
}

export const openAiReply = {
  /** The model answers with this value as JSON content. */
  json: (value: unknown, usage?: FakeUsage): FakeOpenAiReply => ({ kind: 'content', content: JSON.stringify(value), finishReason: 'stop', usage }),
  /** The model answers with this exact content (prose, broken JSON, a fenced block…). */
  text: (content: string, usage?: FakeUsage): FakeOpenAiReply => ({ kind: 'content', content, finishReason: 'stop', usage }),
  /** The model ran out of output tokens: finish_reason "length". */
  truncated: (content = '{"goal": "Deploy the', usage?: FakeUsage): FakeOpenAiReply => ({ kind: 'content', content, finishReason: 'length', usage }),
  refusal: (refusal = "I'm sorry, I can't help with that.", usage?: FakeUsage): FakeOpenAiReply => ({ kind: 'refusal', refusal, usage }),
  /** An HTTP error, e.g. status(429, { 'retry-after': '0.05' }) or status(500). */
  status: (status: number, headers?: Record<string, string>, message?: string): FakeOpenAiReply => ({ kind: 'status', status, headers, message }),
  /** HTTP 200 with a body that is not a chat completion. */
  garbage: (body = '<html>502 Bad Gateway</html>', contentType = 'application/json'): FakeOpenAiReply => ({ kind: 'garbage', body, contentType }),
  /** Holds the answer back for `ms` (the client should time out first), then sends `then`. */
  stall: (ms: number, then?: FakeOpenAiReply): FakeOpenAiReply => ({ kind: 'stall', ms, then }),
  /** What an OpenAI-compatible server without structured outputs says to response_format json_schema. */
  rejectJsonSchema: (): FakeOpenAiReply => ({ kind: 'reject-json-schema' }),
  /** The model asks for these tool calls (finish_reason "tool_calls"); the request must have offered tools. */
  toolCalls: (calls: FakeToolCall[], content: string | null = null, usage?: FakeUsage): FakeOpenAiReply => ({ kind: 'tool-calls', calls, content, usage }),
};

export type FakeOpenAi = ScriptedLlmServer<FakeOpenAiReply>;

const DEFAULT_USAGE: FakeUsage = { inputTokens: 120, outputTokens: 30 };

/** A Chat Completions server on 127.0.0.1; `url` ends in /v1 like the SDK's default base URL. */
export function startFakeOpenAi(): Promise<FakeOpenAi> {
  return startScriptedLlmServer<FakeOpenAiReply>({
    name: 'fake OpenAI',
    basePath: '/v1',
    endpoint: '/chat/completions',
    checkAuth: (headers: IncomingHttpHeaders) => (/^Bearer \S+/.test(headers.authorization ?? '') ? undefined : 'missing Authorization: Bearer <key>'),
    render,
    errorBody: (message) => ({ error: { message, type: 'server_error', param: null, code: null } }),
  });
}

function render(reply: FakeOpenAiReply, request: RecordedRequest, index: number): WireReply | { problem: string } {
  const body = (request.body ?? {}) as { model?: unknown; response_format?: { type?: unknown } };
  const model = typeof body.model === 'string' ? body.model : 'unknown';
  switch (reply.kind) {
    case 'content':
      return { status: 200, body: completion(index, model, { role: 'assistant', content: reply.content, refusal: null }, reply.finishReason, reply.usage) };
    case 'refusal':
      return { status: 200, body: completion(index, model, { role: 'assistant', content: null, refusal: reply.refusal }, 'stop', reply.usage) };
    case 'status':
      return {
        status: reply.status,
        headers: { 'x-request-id': `req_fake_${index}`, ...reply.headers },
        body: {
          error: {
            message: reply.message ?? `fake OpenAI: scripted ${reply.status}`,
            type: reply.status === 429 ? 'rate_limit_exceeded' : 'server_error',
            param: null,
            code: null,
          },
        },
      };
    case 'garbage':
      return { status: 200, headers: { 'content-type': reply.contentType ?? 'application/json' }, body: reply.body };
    case 'stall': {
      const then = reply.then
        ? render(reply.then, request, index)
        : { status: 200, body: completion(index, model, { role: 'assistant', content: '{}', refusal: null }, 'stop') };
      return 'problem' in then ? then : { ...then, delayMs: reply.ms };
    }
    case 'tool-calls': {
      const offered = ((request.body as { tools?: { function?: { name?: unknown } }[] }).tools ?? []).map((tool) => tool.function?.name);
      if (!offered.length) return { problem: 'scripted to answer with tool calls, but the request offered no tools' };
      const toolCalls = reply.calls.map((call, i) => ({
        id: `call_fake${index}_${i + 1}`,
        type: 'function',
        function: { name: call.name, arguments: call.rawArguments ?? JSON.stringify(call.args ?? {}) },
      }));
      return {
        status: 200,
        body: completion(index, model, { role: 'assistant', content: reply.content, refusal: null, tool_calls: toolCalls }, 'tool_calls', reply.usage),
      };
    }
    case 'reject-json-schema':
      if (body.response_format?.type !== 'json_schema') {
        return { problem: `scripted to reject response_format json_schema, but the request asked for ${JSON.stringify(body.response_format?.type)}` };
      }
      return {
        status: 400,
        body: {
          error: {
            message: "'response_format.type' must be 'text' or 'json_object'; 'json_schema' is not supported",
            type: 'invalid_request_error',
            param: 'response_format',
            code: null,
          },
        },
      };
  }
}

function completion(index: number, model: string, message: object, finishReason: string, usage: FakeUsage = DEFAULT_USAGE) {
  return {
    id: `chatcmpl-fake${index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, message: { ...message, annotations: [] }, logprobs: null, finish_reason: finishReason }],
    usage: { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens },
  };
}
