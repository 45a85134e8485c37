/**
 * The shape the planner model answers in. Strict structured output allows no optional fields and
 * no open records, so args travel as a JSON string (`argsJson`) and become the Plan's `args` here.
 */
import { z } from 'zod';
import type { Result } from '../model/errors.ts';
import { PLAN_SCHEMA_VERSION } from '../model/plan/plan.ts';

export const PlannerAnswerSchema = z.object({
  goal: z.string().describe('What the plan achieves, one sentence'),
  confidence: z.number().describe('0..1: how sure you are that this plan does what was asked'),
  steps: z.array(
    z.object({
      id: z.string().describe('s1, s2, …'),
      title: z.string(),
      tool: z.string(),
      argsJson: z.string().describe('The tool arguments as a JSON object, e.g. {"repo":"acme/api"}'),
      dependsOn: z.array(z.string()),
      expect: z.string().nullable().describe('What a correct result looks like, or null'),
    }),
  ),
  rollback: z.array(
    z.object({
      id: z.string().describe('r1, r2, …'),
      title: z.string(),
      tool: z.string(),
      argsJson: z.string(),
      undoes: z.string().nullable().describe('The id of the forward step this undoes'),
    }),
  ),
  questions: z.array(z.string()).describe('Questions for the requester; only when the task cannot be planned without answers'),
});

export type PlannerAnswer = z.infer<typeof PlannerAnswerSchema>;

/** The answer as plan-shaped data (not yet validated); argsJson that is not a JSON object is a problem. */
export function answerToPlanInput(answer: PlannerAnswer): Result<unknown, string[]> {
  const problems: string[] = [];
  const args = (id: string, json: string): Record<string, unknown> => {
    try {
      const value: unknown = JSON.parse(json || '{}');
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
      problems.push(`${id}.argsJson: must be a JSON object, got ${json.slice(0, 80)}`);
    } catch (error) {
      problems.push(`${id}.argsJson: not valid JSON (${(error as Error).message})`);
    }
    return {};
  };
  const plan = {
    schemaVersion: PLAN_SCHEMA_VERSION,
    goal: answer.goal,
    confidence: answer.confidence,
    steps: answer.steps.map((step) => ({
      id: step.id,
      title: step.title,
      tool: step.tool,
      args: args(step.id, step.argsJson),
      dependsOn: step.dependsOn,
      ...(step.expect ? { expect: step.expect } : {}),
    })),
    rollback: answer.rollback.map((step) => ({
      id: step.id,
      title: step.title,
      tool: step.tool,
      args: args(step.id, step.argsJson),
      ...(step.undoes ? { undoes: step.undoes } : {}),
    })),
    ...(answer.questions.length ? { questions: answer.questions } : {}),
  };
  return problems.length ? { ok: false, error: problems } : { ok: true, value: plan };
}

/**
 * Some models and OpenAI-compatible servers ignore the answer schema and write the plan artifact itself
 * (the plan artifact of docs/plan.schema.json: `args` as an object). Such an answer is as good as ours once it validates, so it is taken
 * as plan input instead of costing a repair round. Returns undefined when the text is not that shape.
 */
export function artifactShapedAnswer(raw: string | undefined): unknown {
  if (!raw) return undefined;
  const text = raw
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const candidate = value as { steps?: unknown; questions?: unknown };
  const steps = Array.isArray(candidate.steps) ? (candidate.steps as unknown[]) : [];
  const argsAsObjects = steps.every((step) => step !== null && typeof step === 'object' && !('argsJson' in step));
  return argsAsObjects && (steps.length > 0 || Array.isArray(candidate.questions)) ? value : undefined;
}
