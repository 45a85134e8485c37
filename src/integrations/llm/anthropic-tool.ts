import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';

/**
 * Structured output through forced tool use: the schema becomes the input schema of one tool the
 * model must call. This works on every Claude model, unlike output_config.format, which only the newest
 * accept (an older model would answer 400).
 */
export interface AnswerTool {
  definition: Anthropic.Tool;
  name: string;
  /** The tool input back as the JSON text of the answer (unwrapped if the schema was not an object). */
  answerText(input: unknown): string;
}

export function answerTool(schema: z.ZodType<unknown>, schemaName: string): AnswerTool {
  const name = schemaName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'answer';
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, { unrepresentable: 'any' }) as Record<string, unknown>;
  // Tool input must be an object; anything else is wrapped as { value } and unwrapped on the way back.
  const wrapped = jsonSchema.type !== 'object';
  const inputSchema = wrapped
    ? { type: 'object' as const, properties: { value: jsonSchema }, required: ['value'] }
    : { ...jsonSchema, type: 'object' as const };
  return {
    name,
    definition: {
      name,
      description: `Give your answer (${schemaName}) by calling this tool; its input is the whole answer.`,
      input_schema: inputSchema,
    },
    answerText(input) {
      const value = wrapped && input !== null && typeof input === 'object' && 'value' in input ? input.value : input;
      return JSON.stringify(value) ?? '';
    },
  };
}
