/**
 * Asks the planner model for a plan and keeps only a valid one: an answer that does not parse or
 * fails validation gets up to two repair rounds that show the model what was wrong.
 */
import { LlmError } from '../model/errors.ts';
import type { Plan } from '../model/plan/plan.ts';
import type { PlanValidationOptions } from '../model/plan/plan-validation.ts';
import { problemWords } from '../model/plan/plan-problems.ts';
import { validatePlan } from '../model/plan/plan-validation.ts';
import { PlannerAnswerSchema, answerToPlanInput, artifactShapedAnswer } from './planner-schema.ts';
import { plannerSystemPrompt, plannerUserPrompt, repairPrompt, type PlanRequest } from './planner-prompt.ts';
import type { LlmClient, LlmMessage, LlmResponse } from '../ports/llm.ts';
import { refuse, type Refused } from '../model/refusal.ts';
import type { RepositoryAllowList } from '../model/repository-allow-list.ts';
import type { ToolRegistry } from '../model/tool-registry.ts';
import { joined, setting, type Text, words } from '../text/text.ts';

export const REPAIR_ROUNDS = 2;

export interface PlannerDeps {
  llm: LlmClient;
  tools: ToolRegistry;
  maxSteps: number;
  secrets: readonly string[];
  /** TANDEM_REPOS: a plan on another repository goes back to the model with the reason. */
  repositories?: RepositoryAllowList;
  /** Called for every model answer, so tokens count against the run's budget. */
  onUsage?: (response: LlmResponse<unknown>) => Promise<void>;
  /** The same for the fallback planner's answer. */
  onFallbackUsage?: (response: LlmResponse<unknown>) => Promise<void>;
  /** A valid plan below this confidence is handed to the fallback planner, if one is configured. */
  confidenceThreshold?: number;
  signal?: AbortSignal;
}

/** No planner model configured; the model failed (after its retries); its answer stayed invalid through the repair rounds (and the fallback's). */
export type PlannerRefusalCode = 'no-planner' | 'planner-failed' | 'planner-unavailable' | 'invalid-plan';

export interface PlannedResult {
  plan: Plan;
  /** `provider:model` of the model that wrote it. */
  author: string;
  /** Set when the fallback planner wrote the plan: why it was asked. */
  fallback?: string;
}

/** `outage`: the provider could not be reached, timed out or kept rate-limiting (after the SDK's retries). */
type Attempt = { kind: 'valid'; value: PlannedResult } | { kind: 'invalid'; problems: Text[] } | { kind: 'failed'; error: string; outage: boolean };

const OUTAGES: ReadonlySet<string> = new Set(['unavailable', 'timeout', 'rate-limited']);

/**
 * The planner, with its repair rounds; then, when its answer is still invalid or its confidence is under
 * the threshold and PLANNER_FALLBACK_MODEL is set, the fallback model plans once from the same prompt.
 */
export async function makePlan(
  deps: PlannerDeps,
  request: PlanRequest,
  options: Pick<PlanValidationOptions, 'completedSteps'> = {},
): Promise<Refused<PlannedResult, PlannerRefusalCode, Text>> {
  if (!deps.llm.has('planner')) {
    return refuse('no-planner', words`No planner model is configured: set ${setting('planner-model')} (e.g. openai:gpt-4o) and ${setting('model-key')}.`);
  }
  const system = plannerSystemPrompt({ maxSteps: deps.maxSteps });
  const prompt: LlmMessage = {
    role: 'user',
    content: plannerUserPrompt(request, deps.tools.catalogue(), { maxSteps: deps.maxSteps, repositories: deps.repositories }, deps.secrets),
  };
  const primary = await attemptPlan(deps, { role: 'planner', system, prompt, rounds: REPAIR_ROUNDS, runId: request.runId, onUsage: deps.onUsage }, options);
  if (primary.kind === 'failed') return failedOver(deps, primary, { system, prompt, runId: request.runId }, options);
  const why = fallbackReason(primary, deps.confidenceThreshold);
  if (!why || !deps.llm.has('planner-fallback'))
    return primary.kind === 'valid' ? { ok: true, value: primary.value } : refuse('invalid-plan', invalidMessage(primary.problems));
  const fallback = await attemptPlan(
    deps,
    { role: 'planner-fallback', system, prompt, rounds: 0, runId: request.runId, onUsage: deps.onFallbackUsage },
    options,
  );
  if (fallback.kind === 'valid') return { ok: true, value: { ...fallback.value, fallback: why } };
  // A low-confidence plan still stands (it escalates as usual); an invalid one fails with both models' reasons.
  if (primary.kind === 'valid') return { ok: true, value: primary.value };
  const also = fallback.kind === 'failed' ? fallback.error : words`its answer was invalid too: ${joined(fallback.problems.slice(0, 5), '; ')}`;
  return refuse('invalid-plan', words`${invalidMessage(primary.problems)} The fallback planner was asked once: ${also}`);
}

/**
 * The planner's provider is down: the fallback planner (another model, often another provider) plans
 * once if configured; otherwise, or if it fails too, the refusal says the planner is unavailable, so the
 * thread can offer Try again instead of a loop that spends the budget.
 */
async function failedOver(
  deps: PlannerDeps,
  primary: Extract<Attempt, { kind: 'failed' }>,
  spec: Pick<AttemptSpec, 'system' | 'prompt' | 'runId'>,
  options: Pick<PlanValidationOptions, 'completedSteps'>,
): Promise<Refused<PlannedResult, PlannerRefusalCode, Text>> {
  if (!primary.outage) return refuse('planner-failed', primary.error);
  if (!deps.llm.has('planner-fallback')) return refuse('planner-unavailable', primary.error);
  const fallback = await attemptPlan(deps, { role: 'planner-fallback', ...spec, rounds: 0, onUsage: deps.onFallbackUsage }, options);
  if (fallback.kind === 'valid') return { ok: true, value: { ...fallback.value, fallback: `the planner model was unavailable (${primary.error})` } };
  const also = fallback.kind === 'failed' ? fallback.error : words`its answer was invalid: ${joined(fallback.problems.slice(0, 5), '; ')}`;
  return refuse('planner-unavailable', words`${primary.error} The fallback planner was asked once: ${also}`);
}

function fallbackReason(attempt: Exclude<Attempt, { kind: 'failed' }>, threshold: number | undefined): string | null {
  if (attempt.kind === 'invalid') return `the planner's answer was still invalid after ${REPAIR_ROUNDS} repair rounds`;
  const confidence = attempt.value.plan.confidence;
  if (threshold !== undefined && confidence < threshold) return `the planner's confidence ${confidence.toFixed(2)} was below the threshold ${threshold}`;
  return null;
}

function invalidMessage(problems: readonly Text[]): Text {
  return words`The planner could not produce a valid plan after ${REPAIR_ROUNDS} repair rounds: ${joined(problems.slice(0, 5), '; ')}`;
}

interface AttemptSpec {
  role: 'planner' | 'planner-fallback';
  system: string;
  prompt: LlmMessage;
  rounds: number;
  runId: string | undefined;
  onUsage: ((response: LlmResponse<unknown>) => Promise<void>) | undefined;
}

/** One model's answer and up to `rounds` repair rounds that show it what was wrong. */
async function attemptPlan(deps: PlannerDeps, spec: AttemptSpec, options: Pick<PlanValidationOptions, 'completedSteps'>): Promise<Attempt> {
  const messages: LlmMessage[] = [spec.prompt];
  const model = spec.role === 'planner' ? 'planner model' : 'fallback planner model';
  let problems: Text[] = [];
  for (let round = 0; round <= spec.rounds; round++) {
    let answerText: string;
    try {
      const response = await deps.llm.generate({
        role: spec.role,
        system: spec.system,
        messages: [...messages],
        schema: PlannerAnswerSchema,
        schemaName: 'plan',
        runId: spec.runId,
        signal: deps.signal,
      });
      await spec.onUsage?.(response);
      answerText = JSON.stringify(response.value);
      const input = answerToPlanInput(response.value);
      const checked = input.ok ? validatePlan(input.value, deps.tools, { maxSteps: deps.maxSteps, repositories: deps.repositories, ...options }) : undefined;
      if (checked?.ok) return { kind: 'valid', value: { plan: checked.value, author: `${response.provider}:${response.model}` } };
      problems = checked ? checked.error.map(problemWords) : input.ok ? [] : input.error;
    } catch (error) {
      if (!(error instanceof LlmError)) throw error;
      if (error.kind !== 'invalid-output') return { kind: 'failed', error: `The ${model} failed: ${error.message}`, outage: OUTAGES.has(error.kind) };
      answerText = error.details.raw ?? '(no usable answer)';
      const artifact = artifactShapedAnswer(error.details.raw);
      const checked =
        artifact === undefined ? undefined : validatePlan(artifact, deps.tools, { maxSteps: deps.maxSteps, repositories: deps.repositories, ...options });
      if (checked?.ok)
        return { kind: 'valid', value: { plan: checked.value, author: `${error.details.provider ?? 'model'}:${error.details.model ?? 'unknown'}` } };
      problems = checked ? checked.error.map(problemWords) : [error.message, ...(error.details.issues ?? [])];
    }
    messages.push({ role: 'assistant', content: answerText.slice(0, 20_000) }, { role: 'user', content: repairPrompt(problems) });
  }
  return { kind: 'invalid', problems };
}
