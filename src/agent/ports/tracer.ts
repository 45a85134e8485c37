/**
 * Where a run's trace goes (OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set; src/observability).
 * The core never calls it: the decorators in src/observability derive the spans from the store, the
 * tools and the model client, which every step and call passes through anyway. No OpenTelemetry type
 * appears here, so the agent's layer rule holds and the SDK is loaded only when tracing is on.
 */

/** A run's trace as stored with the run: continued by whichever replica resumes it. */
export interface RunTrace {
  /** 32 lower-case hex digits (W3C trace-context). */
  traceId: string;
  /** The run's root span, recorded when the run ends: 16 lower-case hex digits. */
  rootSpanId: string;
}

export type SpanAttributeValue = string | number | boolean | readonly string[];
export type SpanAttributes = Record<string, SpanAttributeValue | undefined>;

/** A span that already ended: a step's attempt, a wait for a person, a plan version, the run itself. */
export interface EndedSpan {
  name: string;
  startedAt: Date;
  endedAt: Date;
  attributes: SpanAttributes;
  /** A failure, redacted: the span's status is an error with this message. */
  error?: string;
}

/** Ids fixed by the caller, so every replica names a step's or a plan version's span the same. */
export interface SpanIds {
  traceId: string;
  spanId: string;
  /** null: the run's root span. */
  parentSpanId: string | null;
}

export interface LiveSpan {
  set(attributes: SpanAttributes): void;
  fail(error: string): void;
}

export interface RunTracer {
  /** Exports a span that has ended, under the ids given. */
  record(ids: SpanIds, span: EndedSpan): void;
  /**
   * Runs `work` inside a live span: under the span active now when it belongs to the same trace (a
   * model call inside a tool call), else under `parent`. Spans and log lines made meanwhile join it.
   */
  live<T>(parent: { traceId: string; spanId: string }, name: string, attributes: SpanAttributes, work: (span: LiveSpan) => Promise<T>): Promise<T>;
  /** The trace and span ids active now, for a log line. */
  activeIds(): { traceId: string; spanId: string } | undefined;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}
