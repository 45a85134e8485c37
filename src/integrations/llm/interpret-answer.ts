import type { z } from 'zod';
import { LlmError } from '../../agent/model/errors.ts';
import type { LlmRole } from '../../agent/ports/llm.ts';
import type { ModelRoute } from '../../config/config.ts';
import type { ChatModelAnswer } from './chat-model.ts';
import { parseStructuredOutput } from './structured-output.ts';

export interface AnswerContext<T> {
  role: LlmRole;
  route: ModelRoute;
  schema: z.ZodType<T>;
  schemaName: string;
  maxOutputTokens: number | undefined;
  /** Applied to the answer text before it travels on in an error (logs, repair prompts, Slack). */
  redact: (text: string) => string;
}

/** The model's answer as the typed value, or the LlmError the agent decides on. */
export function interpretAnswer<T>(answer: ChatModelAnswer, context: AnswerContext<T>): T {
  const { role, route, schemaName } = context;
  const raw = context.redact(answer.text);
  const details = { provider: route.provider, model: route.model, raw };
  if (answer.kind === 'refused') {
    throw new LlmError('refusal', `The ${role} model (${route.model}) declined to answer: ${clip(raw)}`, details);
  }
  if (answer.kind === 'truncated') {
    const limit = context.maxOutputTokens ? ` of ${context.maxOutputTokens}` : '';
    throw new LlmError('max-tokens', `The ${role} model (${route.model}) used up its output limit${limit} tokens before finishing the ${schemaName}.`, details);
  }
  const parsed = parseStructuredOutput(answer.text, context.schema);
  if (parsed.ok) return parsed.value;
  const issues = parsed.error;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw new LlmError('invalid-output', `The ${role} model (${route.model}) gave a ${schemaName} that does not fit: ${clip(issues[0] ?? 'no answer')}${more}`, {
    ...details,
    issues: issues.map(context.redact),
  });
}

function clip(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
