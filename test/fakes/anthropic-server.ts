import type { IncomingHttpHeaders } from 'node:http';
import { startScriptedLlmServer, type RecordedRequest, type ScriptedLlmServer, type WireReply } from './scripted-llm-server.ts';

export type { RecordedRequest } from './scripted-llm-server.ts';

export interface FakeUsage {
  inputTokens: number;
  outputTokens: number;
}

/** One scripted answer of the fake Messages server. Build them with `anthropicReply`. */
export type FakeAnthropicReply =
  | { kind: 'json'; value: unknown; stopReason: 'tool_use' | 'max_tokens'; usage?: FakeUsage }
  | { kind: 'text'; text: string; stopReason: 'end_turn' | 'max_tokens' | 'refusal'; usage?: FakeUsage }
  | { kind: 'status'; status: number; headers?: Record<string, string>; message?: string }
  | { kind: 'garbage'; body: string; contentType?: string }
  | { kind: 'stall'; ms: number; then?: FakeAnthropicReply }
  | { kind: 'tool-use'; calls: { name: string; input: unknown }[]; text: string | null; usage?: FakeUsage };

export const anthropicReply = {
  /**
   * The model answers with this value: as the input of the tool the request forced with tool_choice,
   * or as JSON text when the request forced none.
   */
  json: (value: unknown, usage?: FakeUsage): FakeAnthropicReply => ({ kind: 'json', value, stopReason: 'tool_use', usage }),
  /** The model writes this text instead of calling the tool. */
  text: (text: string, usage?: FakeUsage): FakeAnthropicReply => ({ kind: 'text', text, stopReason: 'end_turn', usage }),
  /** stop_reason "max_tokens" with a partial tool input. */
  truncated: (partial: unknown = { goal: 'Deploy the' }, usage?: FakeUsage): FakeAnthropicReply => ({
    kind: 'json',
    value: partial,
    stopReason: 'max_tokens',
    usage,
  }),
  refusal: (text = "I can't help with that request.", usage?: FakeUsage): FakeAnthropicReply => ({ kind: 'text', text, stopReason: 'refusal', usage }),
  /** An HTTP error, e.g. status(429, { 'retry-after': '0.05' }), status(529) (overloaded). */
  status: (status: number, headers?: Record<string, string>, message?: string): FakeAnthropicReply => ({ kind: 'status', status, headers, message }),
  garbage: (body = '<html>502 Bad Gateway</html>', contentType = 'application/json'): FakeAnthropicReply => ({ kind: 'garbage', body, contentType }),
  stall: (ms: number, then?: FakeAnthropicReply): FakeAnthropicReply => ({ kind: 'stall', ms, then }),
  /** The model calls these tools (stop_reason "tool_use"); the request must have offered tools without forcing one. */
  toolUse: (calls: { name: string; input: unknown }[], text: string | null = null, usage?: FakeUsage): FakeAnthropicReply => ({
    kind: 'tool-use',
    calls,
    text,
    usage,
  }),
};

export type FakeAnthropic = ScriptedLlmServer<FakeAnthropicReply>;

const DEFAULT_USAGE: FakeUsage = { inputTokens: 150, outputTokens: 40 };

/** A Messages API server on 127.0.0.1; `url` is the base URL (the SDK adds /v1/messages). */
export function startFakeAnthropic(): Promise<FakeAnthropic> {
  return startScriptedLlmServer<FakeAnthropicReply>({
    name: 'fake Anthropic',
    basePath: '',
    endpoint: '/v1/messages',
    checkAuth: (headers: IncomingHttpHeaders) =>
      headers['x-api-key'] || /^Bearer \S+/.test(headers.authorization ?? '') ? undefined : 'missing x-api-key or Authorization: Bearer <key>',
    render,
    errorBody: (message) => ({ type: 'error', error: { type: 'api_error', message } }),
  });
}

function render(reply: FakeAnthropicReply, request: RecordedRequest, index: number): WireReply | { problem: string } {
  const body = (request.body ?? {}) as { model?: unknown; tool_choice?: { type?: unknown; name?: unknown } };
  const model = typeof body.model === 'string' ? body.model : 'unknown';
  const forcedTool = body.tool_choice?.type === 'tool' && typeof body.tool_choice.name === 'string' ? body.tool_choice.name : undefined;
  switch (reply.kind) {
    case 'json': {
      const block = forcedTool
        ? { type: 'tool_use', id: `toolu_fake${index}`, name: forcedTool, input: reply.value }
        : { type: 'text', text: JSON.stringify(reply.value), citations: null };
      return {
        status: 200,
        headers: { 'request-id': `req_fake${index}` },
        body: message(index, model, [block], forcedTool ? reply.stopReason : 'end_turn', reply.usage),
      };
    }
    case 'tool-use': {
      const offered = ((request.body as { tools?: unknown[] }).tools ?? []).length;
      if (!offered || forcedTool) return { problem: 'scripted to call tools, but the request offered none or forced one' };
      const blocks = [
        ...(reply.text ? [{ type: 'text', text: reply.text, citations: null }] : []),
        ...reply.calls.map((call, i) => ({ type: 'tool_use', id: `toolu_fake${index}_${i + 1}`, name: call.name, input: call.input })),
      ];
      return { status: 200, headers: { 'request-id': `req_fake${index}` }, body: message(index, model, blocks, 'tool_use', reply.usage) };
    }
    case 'text':
      return {
        status: 200,
        headers: { 'request-id': `req_fake${index}` },
        body: message(index, model, [{ type: 'text', text: reply.text, citations: null }], reply.stopReason, reply.usage),
      };
    case 'status':
      return {
        status: reply.status,
        headers: { 'request-id': `req_fake${index}`, ...reply.headers },
        body: { type: 'error', error: { type: errorType(reply.status), message: reply.message ?? `fake Anthropic: scripted ${reply.status}` } },
      };
    case 'garbage':
      return { status: 200, headers: { 'content-type': reply.contentType ?? 'application/json' }, body: reply.body };
    case 'stall': {
      const then = reply.then ? render(reply.then, request, index) : render(anthropicReply.json({}), request, index);
      return 'problem' in then ? then : { ...then, delayMs: reply.ms };
    }
  }
}

function errorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  if (status === 401) return 'authentication_error';
  if (status === 400) return 'invalid_request_error';
  return 'api_error';
}

function message(index: number, model: string, content: object[], stopReason: string, usage: FakeUsage = DEFAULT_USAGE) {
  return {
    id: `msg_fake${index}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      service_tier: 'standard',
    },
  };
}
