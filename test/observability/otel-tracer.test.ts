/** The OpenTelemetry adapter on its own: the ids it is given reach the collector, and a collector it cannot reach is logged. */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startOtelTracer } from '../../src/observability/otel-tracer.ts';
import { startOtlpGrpcReceiver } from '../fakes/otlp-grpc-receiver.ts';
import { startOtlpReceiver } from '../fakes/otlp-receiver.ts';

afterEach(() => vi.unstubAllEnvs());

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, seconds));

describe('the OTLP adapter', () => {
  it.each([
    ['http/json', 'application/json'],
    ['http/protobuf', 'application/x-protobuf'],
    ['grpc', 'application/grpc'],
  ] as const)('exports recorded spans under the ids chosen for them, and live spans under the active one (%s)', async (protocol, contentType) => {
    const receiver = protocol === 'grpc' ? await startOtlpGrpcReceiver() : await startOtlpReceiver();
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.url);
    const warnings: string[] = [];
    const tracer = await startOtelTracer({ warn: (_obj, msg) => warnings.push(String(msg)) }, protocol);
    const traceId = 'aa'.repeat(16);
    tracer.record(
      { traceId, spanId: '1'.repeat(16), parentSpanId: null },
      { name: 'run', startedAt: at(0), endedAt: at(9), attributes: { 'tandem.run.id': 'run_1' } },
    );
    tracer.record(
      { traceId, spanId: '2'.repeat(16), parentSpanId: '1'.repeat(16) },
      { name: 'step s1', startedAt: at(1), endedAt: at(2), attributes: {}, error: 'boom' },
    );
    await tracer.live({ traceId, spanId: '2'.repeat(16) }, 'execute_tool agent_task', {}, async () => {
      expect(tracer.activeIds()?.traceId).toBe(traceId);
      await tracer.live({ traceId, spanId: '1'.repeat(16) }, 'chat gpt-4o', { 'gen_ai.usage.input_tokens': 5 }, async () => {});
    });
    await tracer.shutdown();
    await receiver.close();

    const byName = Object.fromEntries(receiver.spans.map((span) => [span.name, span]));
    expect(byName.run).toMatchObject({
      traceId,
      spanId: '1'.repeat(16),
      parentSpanId: undefined,
      service: 'tandem',
      endNs: BigInt(at(9).getTime()) * 1_000_000n,
    });
    expect(byName['step s1']).toMatchObject({ spanId: '2'.repeat(16), parentSpanId: '1'.repeat(16), statusCode: 2 });
    const tool = byName['execute_tool agent_task']!;
    expect(tool.parentSpanId).toBe('2'.repeat(16));
    // The model call is made inside the tool call: it nests there, not under the parent it was offered.
    expect(byName['chat gpt-4o']).toMatchObject({ parentSpanId: tool.spanId, attributes: { 'gen_ai.usage.input_tokens': 5 } });
    expect(warnings).toEqual([]);
    expect(receiver.rejected).toEqual([]);
    expect(receiver.contentTypes.length).toBeGreaterThan(0);
    for (const type of receiver.contentTypes) expect(type.startsWith(contentType), type).toBe(true);
  });

  it('logs a warning when the collector cannot be reached', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', `http://127.0.0.1:${closed}`);
    // The exporter retries within this budget; no need to wait its default 10 s.
    vi.stubEnv('OTEL_EXPORTER_OTLP_TIMEOUT', '300');
    const warnings: string[] = [];
    const tracer = await startOtelTracer({ warn: (_obj, msg) => warnings.push(String(msg)) }, 'http/json');
    tracer.record({ traceId: 'bb'.repeat(16), spanId: '3'.repeat(16), parentSpanId: null }, { name: 'run', startedAt: at(0), endedAt: at(1), attributes: {} });
    await tracer.shutdown();
    expect(
      warnings.some((line) => line.startsWith('trace export:')),
      warnings.join('\n'),
    ).toBe(true);
  });
});
