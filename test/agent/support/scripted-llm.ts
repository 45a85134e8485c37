/**
 * A scripted LlmClient: each generate() takes the next scripted answer for its role, checked against
 * the request's schema. An unexpected call fails (and is remembered); unused answers fail assertDone().
 */
import { LlmError } from '../../../src/agent/model/errors.ts';
import type { PlannerAnswer } from '../../../src/agent/planning/planner-schema.ts';
import type { LlmClient, LlmRequest, LlmResponse, LlmRole } from '../../../src/agent/ports/llm.ts';

type Reply = unknown | LlmError | ((request: LlmRequest<unknown>) => unknown);

export class ScriptedLlm implements LlmClient {
  readonly calls: LlmRequest<unknown>[] = [];
  readonly unexpected: string[] = [];
  private readonly script: { role: LlmRole; reply: Reply }[] = [];

  constructor(private readonly roles: readonly LlmRole[] = ['planner']) {}

  /** Queue the next answer for `role`: a value, an LlmError to throw, or a function of the request. */
  on(role: LlmRole, reply: Reply): this {
    this.script.push({ role, reply });
    return this;
  }

  has(role: LlmRole): boolean {
    return this.roles.includes(role);
  }

  async generate<T>(request: LlmRequest<T>): Promise<LlmResponse<T>> {
    this.calls.push(request as LlmRequest<unknown>);
    const index = this.script.findIndex((entry) => entry.role === request.role);
    if (index < 0) {
      const problem = `unexpected ${request.role} call (nothing scripted): ${request.messages.at(-1)?.content.slice(0, 200)}`;
      this.unexpected.push(problem);
      throw new Error(problem);
    }
    const { reply } = this.script.splice(index, 1)[0]!;
    const value = typeof reply === 'function' ? (reply as (r: LlmRequest<unknown>) => unknown)(request as LlmRequest<unknown>) : reply;
    if (value instanceof LlmError) throw value;
    return { value: request.schema.parse(value), usage: { inputTokens: 100, outputTokens: 20 }, provider: 'fake', model: 'scripted', costUsd: 0.001 };
  }

  assertDone(): void {
    const problems = [...this.unexpected, ...this.script.map((entry) => `unused scripted ${entry.role} answer`)];
    if (problems.length) throw new Error(`scripted LLM: ${problems.join('; ')}`);
  }

  /** The prompts the planner saw, as text. */
  prompts(role: LlmRole = 'planner'): string[] {
    return this.calls.filter((call) => call.role === role).map((call) => [call.system, ...call.messages.map((m) => m.content)].join('\n'));
  }
}

export interface StepSketch {
  id: string;
  tool: string;
  args?: Record<string, unknown>;
  dependsOn?: string[];
  title?: string;
  expect?: string;
}

/** A planner answer in the strict wire shape (argsJson), from a readable sketch. */
export function plannerAnswer(input: {
  steps: StepSketch[];
  rollback?: (StepSketch & { undoes?: string })[];
  confidence?: number;
  goal?: string;
  questions?: string[];
}): PlannerAnswer {
  return {
    goal: input.goal ?? 'Do the thing',
    confidence: input.confidence ?? 0.9,
    steps: input.steps.map((s) => ({
      id: s.id,
      title: s.title ?? `step ${s.id}`,
      tool: s.tool,
      argsJson: JSON.stringify(s.args ?? {}),
      dependsOn: s.dependsOn ?? [],
      expect: s.expect ?? null,
    })),
    rollback: (input.rollback ?? []).map((s) => ({
      id: s.id,
      title: s.title ?? `undo ${s.undoes ?? s.id}`,
      tool: s.tool,
      argsJson: JSON.stringify(s.args ?? {}),
      undoes: s.undoes ?? null,
    })),
    questions: input.questions ?? [],
  };
}
