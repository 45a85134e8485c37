/**
 * An OTLP/HTTP trace receiver on 127.0.0.1, as a collector answers: `POST /v1/traces` with an
 * ExportTraceServiceRequest in OTLP's JSON encoding (hex ids, nanosecond times as strings) or its protobuf
 * encoding (read into the same shape), checked with zod so a malformed export fails the test instead of being
 * read loosely.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { decodeTraceRequest } from './otlp-protobuf.ts';

const AnyValue: z.ZodType<unknown> = z.lazy(() =>
  z.union([
    z.object({ stringValue: z.string() }),
    z.object({ intValue: z.union([z.number(), z.string()]) }),
    z.object({ doubleValue: z.number() }),
    z.object({ boolValue: z.boolean() }),
    z.object({ arrayValue: z.object({ values: z.array(AnyValue).optional() }) }),
  ]),
);
const KeyValue = z.object({ key: z.string(), value: AnyValue });
const Nanos = z.union([z.string().regex(/^\d+$/), z.number()]);
const Span = z.object({
  traceId: z.string().regex(/^[0-9a-f]{32}$/),
  spanId: z.string().regex(/^[0-9a-f]{16}$/),
  parentSpanId: z
    .string()
    .regex(/^([0-9a-f]{16})?$/)
    .optional(),
  name: z.string(),
  kind: z.number().optional(),
  startTimeUnixNano: Nanos,
  endTimeUnixNano: Nanos,
  attributes: z.array(KeyValue).optional(),
  status: z.object({ code: z.number().optional(), message: z.string().optional() }).optional(),
});
const ExportRequest = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: z.array(KeyValue).optional() }).optional(),
      scopeSpans: z.array(z.object({ scope: z.object({ name: z.string() }).optional(), spans: z.array(Span).optional() })),
    }),
  ),
});

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  /** 2: error (OTLP's STATUS_CODE_ERROR). */
  statusCode: number;
  service: string | undefined;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT`: OTEL_EXPORTER_OTLP_ENDPOINT (the SDK appends /v1/traces). */
  url: string;
  spans: ReceivedSpan[];
  /** Bodies that were not an ExportTraceServiceRequest in JSON or protobuf. */
  rejected: string[];
  /** The content type of each export received. */
  contentTypes: string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const rejected: string[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = String(req.headers['content-type']);
      const protobuf = type.startsWith('application/x-protobuf');
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !(protobuf || type.startsWith('application/json'))) {
        rejected.push(`${req.method} ${req.url} ${type}`);
        return void res.writeHead(404).end();
      }
      contentTypes.push(type);
      const problem = receiveExport(protobuf ? decoded(body) : safeJson(body.toString('utf8')), spans);
      if (problem !== undefined) {
        rejected.push(problem);
        return void res.writeHead(400, { 'content-type': 'application/json' }).end('{}');
      }
      // An empty ExportTraceServiceResponse in the encoding it came in.
      res.writeHead(200, { 'content-type': protobuf ? 'application/x-protobuf' : 'application/json' }).end(protobuf ? '' : '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    rejected,
    contentTypes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Reads one ExportTraceServiceRequest (decoded from either encoding) into `spans`; what was wrong with it, if it was not one. */
export function receiveExport(request: unknown, spans: ReceivedSpan[]): string | undefined {
  const parsed = ExportRequest.safeParse(request);
  if (!parsed.success) return parsed.error.message;
  for (const resource of parsed.data.resourceSpans) {
    const resourceAttributes = attributesOf(resource.resource?.attributes);
    for (const scope of resource.scopeSpans) {
      for (const span of scope.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          name: span.name,
          startNs: BigInt(span.startTimeUnixNano),
          endNs: BigInt(span.endTimeUnixNano),
          attributes: attributesOf(span.attributes),
          statusCode: span.status?.code ?? 0,
          service: typeof resourceAttributes['service.name'] === 'string' ? resourceAttributes['service.name'] : undefined,
        });
      }
    }
  }
  return undefined;
}

export function decoded(body: Buffer): unknown {
  try {
    return decodeTraceRequest(body);
  } catch {
    return undefined;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function attributesOf(list: readonly { key: string; value: unknown }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));
}

function plain(value: unknown): unknown {
  const v = value as Record<string, unknown>;
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('boolValue' in v) return v.boolValue;
  if ('arrayValue' in v) return ((v.arrayValue as { values?: unknown[] }).values ?? []).map(plain);
  return undefined;
}

/** One trace as an indented tree, children in start order: what the test prints and compares. */
export function spanTree(spans: readonly ReceivedSpan[], traceId: string, label: (span: ReceivedSpan) => string = (span) => span.name): string {
  const inTrace = spans.filter((span) => span.traceId === traceId);
  const ids = new Set(inTrace.map((span) => span.spanId));
  const children = (parent: string | undefined) =>
    inTrace
      .filter((span) => (parent === undefined ? !span.parentSpanId || !ids.has(span.parentSpanId) : span.parentSpanId === parent))
      .sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : a.name.localeCompare(b.name)));
  const lines: string[] = [];
  const walk = (span: ReceivedSpan, depth: number) => {
    lines.push(`${'  '.repeat(depth)}${label(span)}${span.parentSpanId && !ids.has(span.parentSpanId) ? '  (parent missing)' : ''}`);
    for (const child of children(span.spanId)) walk(child, depth + 1);
  };
  for (const root of children(undefined)) walk(root, 0);
  return lines.join('\n');
}
