import { z } from 'zod';

/**
 * Words for a person, with the people and settings in them kept as data: the agent says who (a user id)
 * and which setting, and each surface names them its own way (Slack writes `<@U1>` and the environment
 * variable). A plain string is a Text too: most messages name nobody.
 */

/** Settings a message may point a person to; the surface knows what each is called where it is set. */
export const SETTINGS = [
  'approvers',
  'max-steps',
  'max-replans',
  'max-tokens',
  'run-timeout',
  'step-timeout',
  'confidence-threshold',
  'repos',
  'planner-model',
  'model-key',
] as const;
export type Setting = (typeof SETTINGS)[number];

export type TextPart = string | { user: string } | { setting: Setting };
export type Text = string | readonly TextPart[];

export const person = (user: string): TextPart => ({ user });
export const setting = (name: Setting): TextPart => ({ setting: name });

/**
 * A tagged template: words`Cancelled by ${person(id)}.` keeps the person as data; numbers become words,
 * and a Text put inside (a reason quoted in another) keeps its people. Words naming nobody are one string.
 */
export function words(strings: TemplateStringsArray, ...values: (Text | TextPart | number)[]): Text {
  const parts: TextPart[] = [];
  const add = (part: TextPart) => {
    const last = parts.at(-1);
    if (typeof part === 'string' && typeof last === 'string') parts[parts.length - 1] = last + part;
    else if (part !== '') parts.push(part);
  };
  strings.forEach((literal, index) => {
    add(literal);
    if (index < values.length) {
      const value = values[index]!;
      if (typeof value === 'number') add(String(value));
      else if (Array.isArray(value)) (value as readonly TextPart[]).forEach(add);
      else add(value as TextPart);
    }
  });
  return parts.length === 1 && typeof parts[0] === 'string' ? parts[0] : parts;
}

/** Several Texts as one, `separator` between them (a list of problems). */
export function joined(texts: readonly Text[], separator: string): Text {
  const parts = texts.flatMap((text, index) =>
    index ? [separator, ...(typeof text === 'string' ? [text] : text)] : typeof text === 'string' ? [text] : [...text],
  );
  return words`${parts}`;
}

/** The words with people and settings named by `name` (a log line, a test, a surface without markup). */
export function spell(text: Text, name: (part: Exclude<TextPart, string>) => string): string {
  if (typeof text === 'string') return text;
  return text.map((part) => (typeof part === 'string' ? part : name(part))).join('');
}

/** A Text as stored (a jsonb column, an event's payload): read back with this, a plain string (an older row) stays valid. */
export const TextSchema: z.ZodType<Text> = z.union([
  z.string(),
  z.array(z.union([z.string(), z.strictObject({ user: z.string() }), z.strictObject({ setting: z.enum(SETTINGS) })])).readonly(),
]);

/** What each setting is called for a reader who has no deployment at hand (a model, a log line): its role. */
export const SETTING_ROLES: Readonly<Record<Setting, string>> = {
  approvers: 'the approver list',
  'max-steps': 'the step limit',
  'max-replans': 'the replan limit',
  'max-tokens': 'the token budget',
  'run-timeout': 'the run time limit',
  'step-timeout': 'the step time limit',
  'confidence-threshold': 'the confidence threshold',
  repos: 'the repository allow-list',
  'planner-model': 'the planner model setting',
  'model-key': "the model provider's API key",
};

/** Words as plain text with people by id and settings by role: for a model's prompt or a stored line that is not shown as chat. */
export function plainText(text: Text): string {
  return spell(text, (part) => ('user' in part ? `user ${part.user}` : SETTING_ROLES[part.setting]));
}
