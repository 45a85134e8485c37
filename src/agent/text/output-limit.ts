/** Tool outputs are redacted and cut to size before they are stored, shown, or given to a model. */
import { redactAndCut, redactText } from './redact.ts';

const MAX_STRING = 4000;
const MAX_ITEMS = 100;
const MAX_KEYS = 200;
const MAX_DEPTH = 20;
export const MAX_OUTPUT_CHARS = 32_000;

/**
 * Redaction and cutting happen together, string by string, so a stranger's 300 MB body costs one
 * bounded window, and a secret is never half-cut before it is recognised.
 */
export function limitOutput(output: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> {
  const trimmed = trim(output, secrets, 0) as Record<string, unknown>;
  const text = JSON.stringify(trimmed);
  if (text.length <= MAX_OUTPUT_CHARS) return trimmed;
  // Cutting JSON text may split an escape; the parts were redacted already, so the preview is safe.
  return { truncated: true, preview: text.slice(0, MAX_OUTPUT_CHARS) };
}

function trim(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === 'string') return redactAndCut(value, secrets, MAX_STRING, (cut) => `… [cut ${cut} characters]`);
  if (depth >= MAX_DEPTH && value && typeof value === 'object') return '[nested too deep]';
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((item) => trim(item, secrets, depth + 1));
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.entries(value)
        .slice(0, MAX_KEYS)
        .map(([key, inner]) => [redactText(key.slice(0, 200), secrets), trim(inner, secrets, depth + 1)]),
    );
  }
  return value;
}
