/**
 * Text PostgreSQL can hold, whatever wrote it. A NUL character is refused in `text` and in `jsonb` ("unsupported Unicode
 * escape sequence"), and a lone UTF-16 surrogate is refused in `jsonb`: one such character in a mention,
 * an answer, a tool's output or a model's answer made the whole write fail, so a request was never stored
 * and a step's end never recorded. Every value is made storable on its way in instead: each such
 * character becomes U+FFFD, the character Unicode keeps for "something was here that could not be kept".
 */

// A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export const REPLACEMENT = '\uFFFD';

export function storableText(text: string): string {
  return text.replace(UNSTORABLE, REPLACEMENT);
}

const ONE_UNSTORABLE = new RegExp(UNSTORABLE.source);

/** Whether any character of the text would be replaced. */
export function hasUnstorableText(text: string): boolean {
  return ONE_UNSTORABLE.test(text);
}

// JSON.stringify writes a NUL as \u0000 and a lone surrogate as \udXXX. Text that merely looks like one
// (a backslash written by a person) only sends the value down the slower path, which is right anyway.
const ESCAPED_UNSTORABLE = /\\u0000|\\ud[89a-f][0-9a-f]{2}/i;

/** The JSON text of a value with every string in it, keys included, made storable. */
export function storableJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined || !ESCAPED_UNSTORABLE.test(json)) return json;
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (typeof inner === 'string') return storableText(inner);
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    const keys = Object.keys(inner);
    if (!keys.some(hasUnstorableText)) return inner;
    return Object.fromEntries(keys.map((key) => [storableText(key), (inner as Record<string, unknown>)[key]]));
  });
}

/**
 * A value a tool or a model gave, with its strings made storable. The executor keeps the value it stores,
 * so a step that uses it later sees the same text before and after a restart.
 */
export function storableValue<T>(value: T): T {
  const json = JSON.stringify(value);
  if (json === undefined || !ESCAPED_UNSTORABLE.test(json)) return value;
  return JSON.parse(storableJson(value)) as T;
}

/**
 * A statement's parameters with every string made storable: the one place raw text reaches either engine,
 * so a `text` column never sees a NUL whichever statement writes it. The array is returned as it is when
 * nothing needs replacing (the common case, on every statement).
 */
export function storableParams<T>(params: readonly T[]): readonly T[] {
  if (!params.some((value) => typeof value === 'string' && hasUnstorableText(value))) return params;
  return params.map((value) => (typeof value === 'string' ? (storableText(value) as T) : value));
}
