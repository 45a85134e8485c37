import type { Text } from '../../src/agent/text/text.ts';
import { plainWords } from '../../src/bot/views/text.ts';

/** Stored words as a person in Slack reads them: people as `<@U…>`, settings by their variable. */
export const said = (text: Text | null | undefined): string | null => (text == null ? null : plainWords(text));

/** An asymmetric matcher: stored words that, as a person reads them, match `pattern`. */
export const saying = (pattern: RegExp) => ({
  asymmetricMatch: (actual: unknown) => actual != null && pattern.test(said(actual as Text)!),
  toString: () => `words saying ${pattern}`,
  toAsymmetricMatcher: () => `words saying ${pattern}`,
});
