import type { z } from 'zod';
import type { Result } from '../../agent/model/errors.ts';

/** Local models in JSON mode often wrap the object in a Markdown fence despite being told not to. */
const FENCE = /^\s*```(?:json)?\s*\n?([\s\S]*?)\n?\s*```\s*$/i;

/**
 * Parses a model's JSON answer against the request's schema. The issues are short lines meant for
 * both a person and the planner's repair round ("steps.0.tool: expected string").
 */
export function parseStructuredOutput<T>(text: string, schema: z.ZodType<T>): Result<T, string[]> {
  const unfenced = FENCE.exec(text)?.[1] ?? text;
  let json: unknown;
  try {
    json = JSON.parse(unfenced);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: [`the answer is not valid JSON (${reason})`] };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    error: parsed.error.issues.map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`),
  };
}

/** For servers without schema-constrained decoding: the schema goes into the prompt instead. */
export function jsonOnlyInstruction(jsonSchema: unknown): string {
  return [
    'Reply with a single JSON object and nothing else: no prose, no Markdown fence.',
    'The JSON object must match this JSON Schema exactly (every property present; use null where a value is unknown):',
    JSON.stringify(jsonSchema),
  ].join('\n');
}
