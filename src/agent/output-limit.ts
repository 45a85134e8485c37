/** Tool outputs are redacted and cut to size before they are stored, shown, or given to a model. */
import { redactValue } from './redact.ts';

const MAX_STRING = 4000;
const MAX_ITEMS = 100;
export const MAX_OUTPUT_CHARS = 32_000;

export function limitOutput(output: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> {
  const redacted = redactValue(output, secrets);
  const trimmed = trim(redacted) as Record<string, unknown>;
  const text = JSON.stringify(trimmed);
  if (text.length <= MAX_OUTPUT_CHARS) return trimmed;
  return { truncated: true, preview: text.slice(0, MAX_OUTPUT_CHARS) };
}

function trim(value: unknown): unknown {
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}… [cut ${value.length - MAX_STRING} characters]` : value;
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map(trim);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, trim(inner)]));
  }
  return value;
}
