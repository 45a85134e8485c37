/**
 * Asks the planner model for a plan and keeps only a valid one: an answer that does not parse or
 * fails validation gets up to two repair rounds that show the model what was wrong.
 */
import { LlmError, type Result } from './errors.ts';
import type { Plan } from './plan.ts';
import type { PlanValidationOptions } from './plan-validation.ts';
import { validatePlan } from './plan-validation.ts';
import { PlannerAnswerSchema, answerToPlanInput, artifactShapedAnswer } from './planner-schema.ts';
import { plannerSystemPrompt, plannerUserPrompt, repairPrompt, type PlanRequest } from './planner-prompt.ts';
import type { LlmClient, LlmMessage, LlmResponse } from './ports/llm.ts';
import type { ToolRegistry } from './tool-registry.ts';

export const REPAIR_ROUNDS = 2;

export interface PlannerDeps {
  llm: LlmClient;
  tools: ToolRegistry;
  maxSteps: number;
  secrets: readonly string[];
  /** Called for every model answer, so tokens count against the run's budget. */
  onUsage?: (response: LlmResponse<unknown>) => Promise<void>;
  signal?: AbortSignal;
}

export interface PlannedResult {
  plan: Plan;
  /** `provider:model` of the model that wrote it. */
  author: string;
}

export async function makePlan(deps: PlannerDeps, request: PlanRequest, options: Pick<PlanValidationOptions, 'completedSteps'> = {}): Promise<Result<PlannedResult>> {
  if (!deps.llm.has('planner')) {
    return { ok: false, error: 'No planner model is configured: set PLANNER_MODEL (e.g. openai:gpt-4o) with OPENAI_API_KEY, or anthropic:… with ANTHROPIC_API_KEY.' };
  }
  const system = plannerSystemPrompt({ maxSteps: deps.maxSteps });
  const messages: LlmMessage[] = [{ role: 'user', content: plannerUserPrompt(request, deps.tools.catalogue(), { maxSteps: deps.maxSteps }, deps.secrets) }];
  let problems: string[] = [];
  for (let round = 0; round <= REPAIR_ROUNDS; round++) {
    let answerText: string;
    try {
      const response = await deps.llm.generate({ role: 'planner', system, messages: [...messages], schema: PlannerAnswerSchema, schemaName: 'plan', runId: request.runId, signal: deps.signal });
      await deps.onUsage?.(response);
      answerText = JSON.stringify(response.value);
      const input = answerToPlanInput(response.value);
      const checked = input.ok ? validatePlan(input.value, deps.tools, { maxSteps: deps.maxSteps, ...options }) : input;
      if (checked.ok) return { ok: true, value: { plan: checked.value, author: `${response.provider}:${response.model}` } };
      problems = checked.error;
    } catch (error) {
      if (!(error instanceof LlmError)) throw error;
      if (error.kind !== 'invalid-output') return { ok: false, error: `The planner model failed: ${error.message}` };
      answerText = error.details.raw ?? '(no usable answer)';
      const artifact = artifactShapedAnswer(error.details.raw);
      const checked = artifact === undefined ? undefined : validatePlan(artifact, deps.tools, { maxSteps: deps.maxSteps, ...options });
      if (checked?.ok) return { ok: true, value: { plan: checked.value, author: `${error.details.provider ?? 'model'}:${error.details.model ?? 'unknown'}` } };
      problems = checked ? checked.error : [error.message, ...(error.details.issues ?? [])];
    }
    messages.push({ role: 'assistant', content: answerText.slice(0, 20_000) }, { role: 'user', content: repairPrompt(problems) });
  }
  return { ok: false, error: `The planner could not produce a valid plan after ${REPAIR_ROUNDS} repair rounds: ${problems.slice(0, 5).join('; ')}` };
}
