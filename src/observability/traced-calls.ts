/**
 * Live spans for the calls a run makes: each tool call (under its step's attempt) and each model call
 * (under the tool call it happens in, else its planning round, else the run), with OpenTelemetry's
 * GenAI semantic-convention attributes. Decorators of the tools and the model client, so neither the
 * core nor an adapter knows about tracing.
 */
import { decorate } from '../agent/ports/decorate.ts';
import type { LlmClient, LlmRole, LlmToolResponse } from '../agent/ports/llm.ts';
import type { AnyTool, ToolResult } from '../agent/ports/tool.ts';
import type { LiveSpan, RunTrace, RunTracer, SpanAttributes } from '../agent/ports/tracer.ts';
import { LlmError } from '../agent/model/errors.ts';
import { redactAndCut } from '../agent/text/redact.ts';
import { runSpans } from './span-ids.ts';

export interface TracedCallsOptions {
  tracer: RunTracer;
  traceOf(runId: string): Promise<RunTrace | undefined>;
  nextPlanVersion(runId: string): Promise<number>;
  /** `provider:model` configured for a role, for the request's model attribute. */
  routeOf(role: LlmRole): { provider: string; model: string } | undefined;
  secrets: readonly string[];
  /** TANDEM_TRACE_CONTENT=on: prompts, answers and tool args on the spans, redacted and cut like logs. */
  content: boolean;
}

/** Longest prompt or answer put on a span (OTLP receivers cut long attributes anyway). */
const MAX_CONTENT = 8_000;

export function traceTools(tools: readonly AnyTool[], options: TracedCallsOptions): AnyTool[] {
  const content = (value: unknown) => (options.content ? redactAndCut(JSON.stringify(value) ?? '', options.secrets, MAX_CONTENT) : undefined);
  return tools.map((tool) =>
    decorate<AnyTool>(tool, {
      async run(args, ctx) {
        const trace = await options.traceOf(ctx.runId);
        if (!trace) return tool.run(args, ctx);
        const attributes: SpanAttributes = {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': tool.name,
          'gen_ai.tool.type': 'function',
          'tandem.run.id': ctx.runId,
          'tandem.step.id': ctx.stepId,
          'tandem.tool.risk': tool.risk,
          'gen_ai.tool.call.arguments': content(args),
        };
        return options.tracer.live({ traceId: trace.traceId, spanId: runSpans.step(trace, ctx) }, `execute_tool ${tool.name}`, attributes, async (span) => {
          const result = await tool.run(args, ctx);
          noteToolResult(span, result, options.secrets);
          return result;
        });
      },
    }),
  );
}

function noteToolResult(span: LiveSpan, result: ToolResult, secrets: readonly string[]): void {
  span.set({ 'tandem.tool.status': result.status });
  if (result.status === 'error') {
    span.set({ 'error.type': result.error.code ?? (result.error.transient ? 'transient' : 'error') });
    span.fail(redactAndCut(result.error.message, secrets, 500));
  }
}

export function traceLlmClient(llm: LlmClient, options: TracedCallsOptions): LlmClient {
  const content = (value: unknown) => (options.content ? redactAndCut(JSON.stringify(value) ?? '', options.secrets, MAX_CONTENT) : undefined);

  /** The call's parent: its run's planning round for the planner, else the run; a tool call it is made in wins (tracer.live). */
  const parentOf = async (runId: string | undefined, role: LlmRole) => {
    const trace = runId ? await options.traceOf(runId) : undefined;
    if (!trace || !runId) return undefined;
    const planning = role === 'planner' || role === 'planner-fallback';
    return { traceId: trace.traceId, spanId: planning ? runSpans.planning(trace, await options.nextPlanVersion(runId)) : runSpans.root(trace) };
  };

  const traced = async <R extends { usage: { inputTokens: number; outputTokens: number }; provider: string; model: string; costUsd: number }>(
    request: { role: LlmRole; runId?: string; system: string; messages: unknown },
    call: () => Promise<R>,
    finishReason: (response: R) => string,
    output: (response: R) => unknown,
  ): Promise<R> => {
    const parent = await parentOf(request.runId, request.role);
    if (!parent) return call();
    const route = options.routeOf(request.role);
    const attributes: SpanAttributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': route?.provider,
      // The older name of the same attribute, still read by many backends.
      'gen_ai.system': route?.provider,
      'gen_ai.request.model': route?.model,
      'tandem.llm.role': request.role,
      'tandem.run.id': request.runId,
      'gen_ai.system_instructions': content(request.system),
      'gen_ai.input.messages': content(request.messages),
    };
    return options.tracer.live(parent, `chat ${route?.model ?? request.role}`, attributes, async (span) => {
      try {
        const response = await call();
        span.set({
          'gen_ai.response.model': response.model,
          'gen_ai.usage.input_tokens': response.usage.inputTokens,
          'gen_ai.usage.output_tokens': response.usage.outputTokens,
          'gen_ai.response.finish_reasons': [finishReason(response)],
          'tandem.llm.cost_usd': response.costUsd,
          'gen_ai.output.messages': content(output(response)),
        });
        return response;
      } catch (error) {
        noteLlmError(span, error, options.secrets);
        throw error;
      }
    });
  };

  const overrides: Partial<LlmClient> = {
    generate: (request) =>
      traced(
        request,
        () => llm.generate(request),
        () => 'stop',
        (response) => response.value,
      ),
  };
  if (llm.converse) {
    const converse = llm.converse.bind(llm);
    overrides.converse = (request) =>
      traced(
        request,
        () => converse(request),
        (response: LlmToolResponse) => (response.toolCalls.length ? 'tool_calls' : 'stop'),
        (response) => ({ text: response.text, toolCalls: response.toolCalls }),
      );
  }
  return decorate(llm, overrides);
}

/** A refusal or a cut-off answer is still a finish reason; anything else is an error type. */
function noteLlmError(span: LiveSpan, error: unknown, secrets: readonly string[]): void {
  if (!(error instanceof LlmError)) return span.fail('error');
  const reason = error.kind === 'refusal' ? 'content_filter' : error.kind === 'max-tokens' ? 'length' : undefined;
  span.set({
    'error.type': error.kind,
    'gen_ai.response.finish_reasons': reason ? [reason] : undefined,
    'gen_ai.response.model': error.details.model,
  });
  span.fail(redactAndCut(error.message, secrets, 500));
}
