/**
 * The shape the planner model answers in. Strict structured output allows no optional fields and
 * no open records, so args travel as a JSON string (`argsJson`) and become the Plan's `args` here.
 * A field added later is required in the JSON Schema the model is sent (strict mode wants every field)
 * but may be absent from an answer (`prefault`, which unlike `default` adds no keyword strict mode
 * refuses): a model, a fake or a compatible server answering the older shape still plans.
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
  notCovered: z
    .array(
      z.object({
        part: z.string().describe('The part of the task, in the requester’s words, e.g. "clean up acme/api"'),
        reason: z.string().describe('Why, in a few words, e.g. "no tool for it"'),
      }),
    )
    .prefault([])
    .describe('Parts of the task this plan does not do, each with why; empty when the plan does all of it'),
});

/** An answer as a model (or a scripted one) may write it: `notCovered` may be left out. */
export type PlannerAnswer = z.input<typeof PlannerAnswerSchema>;

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
    ...notCoveredOf(answer),
  };
  return problems.length ? { ok: false, error: problems } : { ok: true, value: plan };
}

/**
 * What the plan does not do, as the plan stores it. It only informs the approver, so a long or empty
 * entry is trimmed here rather than costing a repair round.
 */
function notCoveredOf(answer: PlannerAnswer): { notCovered?: { part: string; reason: string }[] } {
  const clip = (text: string) => (text.length > 300 ? `${text.slice(0, 299)}…` : text);
  const parts = (answer.notCovered ?? [])
    .filter((gap) => gap.part.trim() !== '')
    .slice(0, 20)
    .map((gap) => ({ part: clip(gap.part.trim()), reason: clip(gap.reason.trim()) }));
  return parts.length ? { notCovered: parts } : {};
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
