/**
 * Token-shaped strings we never let reach a log, the database or a model, whether or not they are
 * our own configured secrets (a person may paste someone else's token into a task).
 */
const TOKEN_PATTERNS: RegExp[] = [
  /\bxox[abposr]-[A-Za-z0-9-]{8,}/g, // Slack bot/user/app tokens
  /\bxapp-[A-Za-z0-9-]{8,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub classic tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, // OpenAI / Anthropic keys
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

export const REDACTED = '[redacted]';

export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  for (const pattern of TOKEN_PATTERNS) out = out.replace(pattern, REDACTED);
  return out;
}

/** Redacts every string inside a JSON-like value; keys stay as they are. */
export function redactValue<T>(value: T, secrets: readonly string[] = []): T {
  if (typeof value === 'string') return redactText(value, secrets) as T;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets)) as T;
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, secrets)])) as T;
  }
  return value;
}
