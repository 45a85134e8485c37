/**
 * `{name}` placeholders in runbook patterns and plans. `{{steps.s1.output.url}}` is the executor's reference
 * syntax, not a placeholder, so a brace next to another brace never counts.
 */
const PLACEHOLDER = /(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})/g;

export const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The placeholder names in a text, in order of first appearance. */
export function placeholdersIn(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1]!))];
}

/**
 * A pattern of placeholders alone (`{a} {b} {c}`) matches every task of that many words, in every
 * channel, and plans it without a model: a pattern needs at least one literal word of two letters.
 */
export function literalWordProblem(pattern: string): string | undefined {
  if (/\p{L}{2,}/u.test(pattern.replace(PLACEHOLDER, ' '))) return undefined;
  return `the pattern "${pattern}" has no word of its own besides placeholders, so it would match almost any task; keep at least one word of the task (for example "deploy {service}")`;
}

/** Every placeholder in every string of a JSON-like value (keys are left alone). */
export function placeholdersInValue(value: unknown): string[] {
  const names = new Set<string>();
  visitStrings(value, (text) => {
    for (const name of placeholdersIn(text)) names.add(name);
    return text;
  });
  return [...names];
}

/** Fills placeholders in every string of a JSON-like value; names without a value are left as they are. */
export function fillPlaceholders<T>(value: T, params: Readonly<Record<string, string>>): T {
  return visitStrings(value, (text) => text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(params, name) ? params[name]! : whole))) as T;
}

/** A copy of the value with `map` applied to every string in it. */
export function visitStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => visitStrings(item, map));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, visitStrings(item, map)]));
  }
  return value;
}
