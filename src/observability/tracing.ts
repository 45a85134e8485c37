import type { LlmClient, LlmRole } from '../agent/ports/llm.ts';
import type { LogPort } from '../agent/ports/logger.ts';
import type { RunStore } from '../agent/ports/run-store.ts';
import type { AnyTool } from '../agent/ports/tool.ts';
import type { RunTracer } from '../agent/ports/tracer.ts';
import type { Config } from '../config/config.ts';
import { setLogTraceFields } from './log-trace.ts';
import { traceLlmClient, traceTools, type TracedCallsOptions } from './traced-calls.ts';
import { traceRunStore } from './traced-store.ts';

/** The parts of a started bot that carry a run's trace: wrap each with these, and close last but the store. */
export interface RunTracing {
  store: RunStore;
  llm(llm: LlmClient): LlmClient;
  tools(tools: readonly AnyTool[]): AnyTool[];
  /** Records what is still being recorded, exports it and stops. */
  close(): Promise<void>;
}

/**
 * Starts tracing when the config turns it on (an OTLP endpoint is set); otherwise undefined, and no
 * OpenTelemetry module is loaded at all (`tracer` is for tests that record spans themselves).
 */
export async function startTracing(options: {
  config: Pick<Config, 'tracing' | 'secrets' | 'models'>;
  store: RunStore;
  logger: LogPort;
  tracer?: RunTracer;
}): Promise<RunTracing | undefined> {
  const { config, logger } = options;
  if (!config.tracing.enabled && !options.tracer) return undefined;
  const tracer = options.tracer ?? (await (await import('./otel-tracer.ts')).startOtelTracer(logger, config.tracing.protocol));
  const traced = traceRunStore(options.store, {
    tracer,
    secrets: config.secrets,
    content: config.tracing.content,
    onError: (error) => logger.warn({ err: error }, 'recording a span failed; the run goes on'),
  });
  const calls: TracedCallsOptions = {
    tracer,
    traceOf: traced.traceOf,
    nextPlanVersion: traced.nextPlanVersion,
    routeOf: (role: LlmRole) => config.models[role],
    secrets: config.secrets,
    content: config.tracing.content,
  };
  setLogTraceFields((line) => {
    const active = tracer.activeIds();
    if (active) return { trace_id: active.traceId, span_id: active.spanId };
    // A line about a run outside any call (the executor, a decision): the run's root span.
    const runId = (line as { runId?: unknown }).runId;
    const trace = typeof runId === 'string' ? traced.knownTrace(runId) : undefined;
    return trace ? { trace_id: trace.traceId, span_id: trace.rootSpanId } : undefined;
  });
  logger.info({ content: config.tracing.content }, 'exporting runs as OpenTelemetry traces over OTLP');
  return {
    store: traced.store,
    llm: (llm) => traceLlmClient(llm, calls),
    tools: (tools) => traceTools(tools, calls),
    async close() {
      await traced.settled();
      setLogTraceFields(undefined);
      await tracer.shutdown();
    },
  };
}
