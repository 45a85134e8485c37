import { spell, type Text } from '../../src/agent/text/text.ts';
import { SETTING_VARIABLES } from '../../src/config/setting-variables.ts';

/**
 * Stored words as the agent keeps them, spelled out: people as `<@U…>`, settings by their variable.
 * (Slack names settings in words and leaves out an aside naming one; test/bot/agent-words.test.ts
 * checks that rendering. Agent tests check what was stored.)
 */
export const spelled = (text: Text): string => spell(text, (part) => ('user' in part ? `<@${part.user}>` : SETTING_VARIABLES[part.setting]));

export const said = (text: Text | null | undefined): string | null => (text == null ? null : spelled(text));

/** An asymmetric matcher: stored words that, as a person reads them, match `pattern`. */
export const saying = (pattern: RegExp) => ({
  asymmetricMatch: (actual: unknown) => actual != null && pattern.test(said(actual as Text)!),
  toString: () => `words saying ${pattern}`,
  toAsymmetricMatcher: () => `words saying ${pattern}`,
});
