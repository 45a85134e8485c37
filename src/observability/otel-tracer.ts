/**
 * The RunTracer port on the OpenTelemetry SDK for Node, exporting over OTLP: protobuf or JSON over HTTP, or gRPC
 * (OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL). The only module that
 * imports @opentelemetry: tracing.ts loads it with a dynamic import, and only when an OTLP endpoint is
 * configured, so a bot without one loads none of it.
 *
 * The SDK reads the standard variables itself (OTEL_EXPORTER_OTLP_ENDPOINT or _TRACES_ENDPOINT, _HEADERS,
 * _TIMEOUT, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_*): src/config only decides whether it
 * is on and keeps header values out of logs.
 */
import {
  context,
  diag,
  DiagLogLevel,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
} from '@opentelemetry/api';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, RandomIdGenerator, type IdGenerator, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import type { LogPort } from '../agent/ports/logger.ts';
import type { RunTracer, SpanAttributes } from '../agent/ports/tracer.ts';
import type { OtlpProtocol } from '../config/config.ts';

/**
 * Random ids, except for the next span when the caller has chosen it: a step's or a plan version's span
 * is named from the run's stored trace id, so a replica that resumes the run records it under the id
 * the first replica's children already point to. startSpan is synchronous, so nothing comes between.
 */
class ChosenIdGenerator implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  next: { traceId?: string; spanId?: string } = {};
  generateTraceId(): string {
    const chosen = this.next.traceId;
    this.next.traceId = undefined;
    return chosen ?? this.random.generateTraceId();
  }
  generateSpanId(): string {
    const chosen = this.next.spanId;
    this.next.spanId = undefined;
    return chosen ?? this.random.generateSpanId();
  }
}

/** The exporter for the protocol asked for, loaded alone: gRPC's client is not loaded for an HTTP export, nor the reverse. */
async function otlpExporter(protocol: OtlpProtocol): Promise<SpanExporter> {
  if (protocol === 'grpc') return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter();
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

export async function startOtelTracer(logger: Pick<LogPort, 'warn'>, protocol: OtlpProtocol): Promise<RunTracer> {
  // The SDK says nothing by default: a collector that refuses or cannot be reached would go unnoticed.
  const warn = (message: string) => logger.warn({ component: 'opentelemetry' }, `trace export: ${message}`);
  const quiet = () => {};
  diag.setLogger({ error: warn, warn, info: quiet, debug: quiet, verbose: quiet }, DiagLogLevel.WARN);
  const ids = new ChosenIdGenerator();
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'tandem' }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over our defaults.
    .merge(detectResources({ detectors: [envDetector] }));
  const exporter = await otlpExporter(protocol);
  const provider = new NodeTracerProvider({ resource, idGenerator: ids, spanProcessors: [new BatchSpanProcessor(exporter)] });
  // Installs the AsyncLocalStorage context manager: a live span stays active across awaits.
  provider.register();
  const tracer = provider.getTracer('tandem');

  const remoteParent = (traceId: string, spanId: string): Context =>
    trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });

  return {
    record(at, span) {
      ids.next = at.parentSpanId ? { spanId: at.spanId } : { traceId: at.traceId, spanId: at.spanId };
      const parent = at.parentSpanId ? remoteParent(at.traceId, at.parentSpanId) : ROOT_CONTEXT;
      const started = tracer.startSpan(span.name, { startTime: span.startedAt, attributes: attributes(span.attributes), root: !at.parentSpanId }, parent);
      if (span.error !== undefined) started.setStatus({ code: SpanStatusCode.ERROR, message: span.error });
      started.end(span.endedAt < span.startedAt ? span.startedAt : span.endedAt);
    },
    async live(parent, name, attrs, work) {
      const active = trace.getActiveSpan()?.spanContext();
      const parentContext = active?.traceId === parent.traceId ? context.active() : remoteParent(parent.traceId, parent.spanId);
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes: attributes(attrs) }, parentContext);
      try {
        return await context.with(trace.setSpan(parentContext, span), () =>
          work({
            set: (more) => span.setAttributes(attributes(more)),
            fail: (message) => span.setStatus({ code: SpanStatusCode.ERROR, message }),
          }),
        );
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
        throw error;
      } finally {
        span.end();
      }
    },
    activeIds() {
      const active = trace.getActiveSpan()?.spanContext();
      return active ? { traceId: active.traceId, spanId: active.spanId } : undefined;
    },
    async shutdown() {
      // The last export's failure (a collector gone) is worth a line, not a failed shutdown.
      await provider.shutdown().catch((error: unknown) => warn(error instanceof Error ? error.message : String(error)));
      // register() set all three globals: a tracer started again in this process registers them afresh.
      trace.disable();
      context.disable();
      propagation.disable();
      diag.disable();
    },
  };
}

function attributes(values: SpanAttributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) out[key] = value as Attributes[string];
  return out;
}
