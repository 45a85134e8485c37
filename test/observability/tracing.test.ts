/**
 * A run's trace recorded from the store, the tools and the model client, with a tracer that keeps what
 * it is given (the OTLP export itself is checked in test/blackbox/traces.test.ts). Two replicas share one
 * database here as they would PostgreSQL: each process's tracing knows nothing of the other's.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LlmClient } from '../../src/agent/ports/llm.ts';
import type { AnyTool, ToolContext } from '../../src/agent/ports/tool.ts';
import type { EndedSpan, LiveSpan, RunTracer, SpanAttributes, SpanIds } from '../../src/agent/ports/tracer.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startTracing, type RunTracing } from '../../src/observability/tracing.ts';
import { PLAN_SCHEMA_VERSION, type Plan } from '../../src/agent/model/plan/plan.ts';
import { useTestStore } from '../helpers/store.ts';

interface KeptSpan extends SpanIds {
  name: string;
  attributes: SpanAttributes;
  error?: string | undefined;
}

/** What a collector would hold: spans from every replica's tracer. */
function collector() {
  const spans: KeptSpan[] = [];
  let seq = 0;
  const tracer = (): RunTracer => {
    const active: { traceId: string; spanId: string }[] = [];
    return {
      record: (ids: SpanIds, span: EndedSpan) => void spans.push({ ...ids, name: span.name, attributes: span.attributes, error: span.error }),
      async live(parent, name, attributes, work) {
        const outer = active.at(-1);
        const parentIds = outer?.traceId === parent.traceId ? outer : parent;
        const kept: KeptSpan = {
          traceId: parent.traceId,
          spanId: `live${String(++seq).padStart(12, '0')}`,
          parentSpanId: parentIds.spanId,
          name,
          attributes: { ...attributes },
        };
        spans.push(kept);
        active.push(kept);
        const span: LiveSpan = { set: (more) => Object.assign(kept.attributes, more), fail: (error) => (kept.error = error) };
        try {
          return await work(span);
        } finally {
          active.pop();
        }
      },
      activeIds: () => active.at(-1),
      shutdown: async () => {},
    };
  };
  return { spans, tracer };
}

const testStore = useTestStore();
const config = loadConfig({ PLANNER_MODEL: 'openai:gpt-4o', OPENAI_API_KEY: 'sk-test-secret-key-00000000000' });

function lines() {
  const written: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { written, logger: createLogger({ level: 'info', secrets: config.secrets, destination }) };
}

const plan: Plan = {
  schemaVersion: PLAN_SCHEMA_VERSION,
  goal: 'Check and tell',
  confidence: 0.9,
  steps: [
    { id: 's1', title: 'Check', tool: 'echo', args: {}, dependsOn: [] },
    { id: 's2', title: 'Tell', tool: 'echo', args: {}, dependsOn: ['s1'] },
  ],
  rollback: [],
};

/** A tool that logs a line while it runs and asks the model once, as llm_task does. */
function echoTool(llm: LlmClient, log: { info(obj: object, msg: string): void }): AnyTool {
  return {
    name: 'echo',
    description: 'echo',
    input: z.object({}),
    risk: 'read',
    async run(_args, ctx: ToolContext) {
      log.info({}, 'echo is running');
      await llm.generate({
        role: 'executor',
        system: 'sys',
        messages: [{ role: 'user', content: 'say hi' }],
        schema: z.object({ hi: z.string() }),
        schemaName: 'hi',
        runId: ctx.runId,
      });
      return { status: 'ok', output: {} };
    },
  };
}

const fakeLlm: LlmClient = {
  has: () => true,
  generate: async () => ({
    value: { hi: 'there' } as never,
    usage: { inputTokens: 7, outputTokens: 3 },
    provider: 'openai',
    model: 'gpt-4o-2024',
    costUsd: 0.001,
  }),
};

function toolContext(runId: string, stepId: string, attempt: number): ToolContext {
  return {
    runId,
    stepId,
    planVersion: 1,
    attempt,
    marker: `tandem:${runId}/${stepId}`,
    startedAt: new Date(),
    signal: new AbortController().signal,
    progress: () => {},
    log: { info: () => {}, warn: () => {} },
  };
}

async function runStep(replica: RunTracing, tool: AnyTool, runId: string, stepId: string) {
  const claimed = await replica.store.claimStep({
    runId,
    planVersion: 1,
    stepId,
    owner: 'r',
    leaseMs: 30_000,
    executedArgs: {},
    started: { kind: 'forward', tool: 'echo' },
  });
  await tool.run({}, toolContext(runId, stepId, claimed!.attempt));
  await replica.store.finishStep({ runId, planVersion: 1, stepId, attempt: claimed!.attempt, status: 'succeeded', output: {} });
}

describe('a run traced across two replicas', () => {
  it('is one tree: every span in the run’s stored trace, each finding its parent, whichever replica recorded it', async () => {
    const seen = collector();
    const { written, logger } = lines();
    const tracing = { ...config, tracing: { enabled: true, content: false, protocol: 'http/json' as const } };
    const a = (await startTracing({ config: tracing, store: testStore.store, logger, tracer: seen.tracer() }))!;
    const run = await a.store.createRun({
      task: 'check the api quietly',
      requester: 'U1',
      conversation: { channel: 'C1', threadTs: '1.1' },
      origin: 'mention',
    });
    expect(run.trace?.traceId).toMatch(/^[0-9a-f]{32}$/);
    const llmA = a.llm(fakeLlm);
    await a.store.addPlanVersion({ runId: run.id, plan, authorKind: 'planner', authorId: 'openai:gpt-4o', parentVersion: null, reason: null, proposed: {} });
    await a.store.createSteps(run.id, 1, [
      { stepId: 's1', kind: 'forward', title: 'Check', tool: 'echo', risk: 'read', dependsOn: [], plannedArgs: {} },
      { stepId: 's2', kind: 'forward', title: 'Tell', tool: 'echo', risk: 'read', dependsOn: ['s1'], plannedArgs: {} },
    ]);
    await a.store.transitionRun(run.id, ['planning'], 'awaiting-approval');
    await a.store.decide({
      runId: run.id,
      planVersion: 1,
      from: ['awaiting-approval'],
      to: 'executing',
      approval: { userId: 'U2', decision: 'approved' },
      event: { type: 'plan-approved', data: { version: 1, by: 'U2' } },
    });
    await runStep(a, a.tools([echoTool(llmA, logger)])[0]!, run.id, 's1');
    logger.warn({ runId: run.id }, 'a line about the run outside any call');
    await a.close();

    // Replica B: another process, nothing cached; it runs s2 and ends the run.
    const b = (await startTracing({ config: tracing, store: testStore.store, logger, tracer: seen.tracer() }))!;
    await runStep(b, b.tools([echoTool(b.llm(fakeLlm), logger)])[0]!, run.id, 's2');
    await b.store.updateRun(run.id, { status: 'succeeded', finishedAt: new Date() });
    await b.close();

    const { traceId, rootSpanId } = run.trace!;
    expect(new Set(seen.spans.map((s) => s.traceId))).toEqual(new Set([traceId]));
    const ids = new Set(seen.spans.map((s) => s.spanId));
    expect(seen.spans.filter((s) => s.parentSpanId !== null && !ids.has(s.parentSpanId)).map((s) => s.name)).toEqual([]);
    const byName = (name: string) => seen.spans.filter((s) => s.name === name);
    expect(byName('run')).toEqual([expect.objectContaining({ spanId: rootSpanId, parentSpanId: null })]);
    const planSpan = byName('plan v1')[0]!;
    expect(planSpan.parentSpanId).toBe(rootSpanId);
    expect(byName('planning')[0]!.parentSpanId).toBe(rootSpanId);
    expect(byName('wait approval')).toEqual([
      expect.objectContaining({ parentSpanId: planSpan.spanId, attributes: expect.objectContaining({ 'tandem.wait.answered_by': 'U2' }) }),
    ]);
    for (const stepId of ['s1', 's2']) {
      const stepSpan = byName(`step ${stepId}`)[0]!;
      expect(stepSpan.parentSpanId).toBe(planSpan.spanId);
      const tool = seen.spans.find((s) => s.name === 'execute_tool echo' && s.attributes['tandem.step.id'] === stepId)!;
      expect(tool.parentSpanId).toBe(stepSpan.spanId);
      const chat = seen.spans.find((s) => s.name === 'chat gpt-4o' && s.parentSpanId === tool.spanId)!;
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.response.model': 'gpt-4o-2024',
        'gen_ai.usage.input_tokens': 7,
        'gen_ai.usage.output_tokens': 3,
        'gen_ai.response.finish_reasons': ['stop'],
      });
    }
    // Nothing of the prompt or task without TANDEM_TRACE_CONTENT=on.
    expect(JSON.stringify(seen.spans)).not.toMatch(/say hi|quietly/);

    // Log lines: inside a tool call, that call's span; about the run outside any call, the run's root span.
    const inTool = written.filter((line) => line.msg === 'echo is running');
    const toolSpans = seen.spans.filter((s) => s.name === 'execute_tool echo').map((s) => s.spanId);
    expect(inTool.map((line) => [line.trace_id, line.span_id])).toEqual(toolSpans.map((spanId) => [traceId, spanId]));
    expect(written.find((line) => line.msg === 'a line about the run outside any call')).toMatchObject({ trace_id: traceId, span_id: rootSpanId });
  }, 30_000);

  it('puts the prompt on model spans only with TANDEM_TRACE_CONTENT=on, redacted like logs', async () => {
    const seen = collector();
    const { logger } = lines();
    const withContent = { ...config, tracing: { enabled: true, content: true, protocol: 'http/json' as const } };
    const tracing = (await startTracing({ config: withContent, store: testStore.store, logger, tracer: seen.tracer() }))!;
    const run = await tracing.store.createRun({ task: 'deploy', requester: 'U1', conversation: { channel: 'C1', threadTs: '2.2' }, origin: 'mention' });
    const secret = config.secrets[0]!;
    await tracing.llm(fakeLlm).generate({
      role: 'planner',
      system: 'plan it',
      messages: [{ role: 'user', content: `use ${secret} and ghp_abcdefghijklmnopqrstuvwxyz0123` }],
      schema: z.object({ hi: z.string() }),
      schemaName: 'hi',
      runId: run.id,
    });
    await tracing.close();
    const chat = seen.spans.find((s) => s.name.startsWith('chat'))!;
    expect(String(chat.attributes['gen_ai.input.messages'])).toContain('use [redacted] and [redacted]');
    expect(JSON.stringify(seen.spans)).not.toContain(secret);
    expect(chat.parentSpanId).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('idle cost', () => {
  const load = (env: Record<string, string>) =>
    new Promise<{ tracing: boolean; opentelemetry: string[] }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'load-tracing.ts')], {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('exit', (code) =>
        code === 0 ? resolve(JSON.parse(out) as { tracing: boolean; opentelemetry: string[] }) : reject(new Error(`exit ${code}: ${out}`)),
      );
    });

  it('loads no @opentelemetry module when no OTLP endpoint is set, and the SDK only when one is', async () => {
    const [off, on] = await Promise.all([load({}), load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })]);
    expect(off).toEqual({ tracing: false, opentelemetry: [] });
    expect(on.tracing).toBe(true);
    expect(on.opentelemetry.some((url) => url.includes('@opentelemetry/sdk-trace-node'))).toBe(true);
  }, 60_000);
});
