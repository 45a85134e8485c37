/**
 * The tools one golden task offers: the real built-in tools' names, descriptions, input schemas, risk
 * and checks (so the planner sees the real catalogue and results are judged as in production), with
 * a `run` that answers from the golden file and counts every call, retries included.
 */
import type { LlmClient } from '../agent/ports/llm.ts';
import type { AnyTool, ToolContext, ToolResult } from '../agent/ports/tool.ts';
import { createAgentTaskTool } from '../integrations/tools/model/agent-task.ts';
import { createBuiltinTools } from '../integrations/tools/builtin-tools.ts';
import { defaultOutput } from './default-outputs.ts';
import type { GoldenTask } from './golden-schema.ts';

/** Hosts the golden tasks' health checks use; http_check's description lists them for the planner. */
export const EVAL_HTTP_ALLOW = ['api.acme.example', 'staging.acme.example', 'status.acme.example'];

export interface ToolCallRecord {
  tool: string;
  stepId: string;
  args: Record<string, unknown>;
  result: ToolResult['status'];
  error: string | null;
}

export interface EvalTools {
  tools: AnyTool[];
  calls: ToolCallRecord[];
  /** Tools the golden file names that the catalogue does not have. */
  unknown: string[];
}

export function builtinToolNames(): string[] {
  return realTools().map((tool) => tool.name);
}

function realTools(): AnyTool[] {
  return createBuiltinTools({ github: undefined, slack: undefined, llm: undefined, httpAllow: EVAL_HTTP_ALLOW });
}

/**
 * agent_task is the real tool on the eval's model: its loop is what a golden task measures, and its
 * calls reach the other (canned) tools through the step runner like in production.
 */
export function createEvalTools(task: GoldenTask, llm?: LlmClient): EvalTools {
  const calls: ToolCallRecord[] = [];
  const real = realTools();
  const offered = task.tools ? real.filter((tool) => task.tools!.includes(tool.name)) : real;
  const named = [...(task.tools ?? []), ...Object.keys(task.outputs), ...task.failures.map((f) => f.tool)];
  const unknown = [...new Set(named.filter((name) => !real.some((tool) => tool.name === name)))];
  const counts = new Map<string, number>();
  const agentTask: AnyTool | undefined = llm ? createAgentTaskTool(llm) : undefined;

  const fake = (tool: AnyTool): AnyTool => ({
    name: tool.name,
    description: tool.description,
    input: tool.input,
    ...(tool.inputJsonSchema ? { inputJsonSchema: tool.inputJsonSchema } : {}),
    ...(tool.check ? { check: tool.check } : {}),
    ...(tool.checkPlanArgs ? { checkPlanArgs: tool.checkPlanArgs } : {}),
    risk: tool.risk,
    async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
      const call = (counts.get(tool.name) ?? 0) + 1;
      counts.set(tool.name, call);
      const injected = task.failures.some((f) => f.tool === tool.name && call >= f.call && call < f.call + f.times);
      const result = tool.name === 'agent_task' && agentTask && !injected && !task.outputs.agent_task ? await agentTask.run(args, ctx) : answer(task, tool.name, args, call);
      calls.push({ tool: tool.name, stepId: ctx.stepId, args, result: result.status, error: result.status === 'error' ? result.error.message : null });
      return result;
    },
  });
  return { tools: offered.map(fake), calls, unknown };
}

function answer(task: GoldenTask, tool: string, args: Record<string, unknown>, call: number): ToolResult {
  const failure = task.failures.find((f) => f.tool === tool && call >= f.call && call < f.call + f.times);
  if (failure) {
    return { status: 'error', error: { message: failure.message, transient: failure.transient, uncertain: failure.uncertain, ...(failure.code ? { code: failure.code } : {}) } };
  }
  if (tool === 'ask_human') return { status: 'pause', question: String(args.question) };
  const canned = task.outputs[tool];
  const pick = Array.isArray(canned) ? canned[Math.min(call, canned.length) - 1] : canned;
  return { status: 'ok', output: { ...defaultOutput(tool, args, call), ...pick } };
}
