/** Fake tools with controllable latency and failure; each records its calls with start and finish times. */
import { z } from 'zod';
import { sleep } from '../../../src/agent/sleep.ts';
import type { AnyTool, ReconcileResult, Risk, ToolContext, ToolResult } from '../../../src/agent/ports/tool.ts';

export interface ToolCall {
  args: Record<string, unknown>;
  stepId: string;
  startedAt: number;
  finishedAt: number | null;
}

export type FakeTool = AnyTool & { calls: ToolCall[] };

export function fakeTool(options: {
  name: string;
  risk: Risk;
  input?: z.ZodType;
  output?: z.ZodType<Record<string, unknown>>;
  latencyMs?: number | (() => number);
  /** Default: `{ ok: true, echo: args }` after the latency. */
  run?: (args: Record<string, unknown>, ctx: ToolContext, call: number) => ToolResult | Promise<ToolResult>;
  reconcile?: (args: Record<string, unknown>, ctx: ToolContext) => Promise<ReconcileResult>;
  check?: AnyTool['check'];
}): FakeTool {
  const calls: ToolCall[] = [];
  const tool: FakeTool = {
    name: options.name,
    description: `fake ${options.name}`,
    risk: options.risk,
    input: options.input ?? z.object({ key: z.string() }),
    output: options.output,
    check: options.check,
    calls,
    async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
      const call: ToolCall = { args, stepId: ctx.stepId, startedAt: performance.now(), finishedAt: null };
      calls.push(call);
      const latency = typeof options.latencyMs === 'function' ? options.latencyMs() : (options.latencyMs ?? 0);
      if (latency > 0) await sleep(latency, ctx.signal);
      try {
        return options.run ? await options.run(args, ctx, calls.length) : { status: 'ok', output: { ok: true, echo: args } };
      } finally {
        call.finishedAt = performance.now();
      }
    },
    ...(options.reconcile ? { reconcile: options.reconcile } : {}),
  };
  return tool;
}

/** The usual set: a read, a write that creates a numbered thing (with an undo), a destructive merge, and ask_human. */
export function standardTools(overrides: { read?: Partial<Parameters<typeof fakeTool>[0]>; write?: Partial<Parameters<typeof fakeTool>[0]> } = {}) {
  let created = 0;
  const read = fakeTool({ name: 'read_thing', risk: 'read', latencyMs: 5, ...overrides.read });
  const write = fakeTool({
    name: 'create_thing',
    risk: 'write',
    input: z.object({ title: z.string(), count: z.number().int().optional() }),
    run: (args) => {
      created++;
      return { status: 'ok', output: { number: created, url: `https://example.test/things/${created}`, title: args.title } };
    },
    ...overrides.write,
  });
  const undo = fakeTool({
    name: 'delete_thing',
    risk: 'write',
    input: z.object({ number: z.number().int() }),
    run: (args) => ({ status: 'ok', output: { deleted: args.number } }),
  });
  const merge = fakeTool({
    name: 'merge_thing',
    risk: 'destructive',
    input: z.object({ number: z.number().int() }),
    run: (args) => ({ status: 'ok', output: { merged: true, number: args.number } }),
  });
  const ask = fakeTool({
    name: 'ask_human',
    risk: 'read',
    input: z.object({ question: z.string() }),
    run: (args) => ({ status: 'pause', question: String(args.question) }),
  });
  return { read, write, undo, merge, ask, all: [read, write, undo, merge, ask] as FakeTool[] };
}
