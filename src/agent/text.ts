import { z } from 'zod';

/**
 * Words for a person, with the people and settings in them kept as data: the agent says who (a user id)
 * and which setting, and each surface names them its own way (Slack writes `<@U1>` and the environment
 * variable). A plain string is a Text too: most messages name nobody.
 */

/** Settings a message may point a person to; the surface knows what each is called where it is set. */
export const SETTINGS = ['approvers'] as const;
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
