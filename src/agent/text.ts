/**
 * Words for a person, with the people and settings in them kept as data: the agent says who (a user id)
 * and which setting, and each surface names them its own way (Slack writes `<@U1>` and the environment
 * variable). A plain string is a Text too: most messages name nobody.
 */

/** Settings a message may point a person to; the surface knows what each is called where it is set. */
export type Setting = 'approvers';

export type TextPart = string | { user: string } | { setting: Setting };
export type Text = string | readonly TextPart[];

export const person = (user: string): TextPart => ({ user });
export const setting = (name: Setting): TextPart => ({ setting: name });

/** A tagged template: words`Cancelled by ${person(id)}.` keeps the person as data; numbers become words. */
export function words(strings: TemplateStringsArray, ...values: (TextPart | number)[]): TextPart[] {
  const parts: TextPart[] = [];
  strings.forEach((literal, index) => {
    if (literal) parts.push(literal);
    if (index < values.length) {
      const value = values[index]!;
      parts.push(typeof value === 'number' ? String(value) : value);
    }
  });
  return parts;
}

/** The words with people and settings named by `name` (a log line, a test, a surface without markup). */
export function spell(text: Text, name: (part: Exclude<TextPart, string>) => string): string {
  if (typeof text === 'string') return text;
  return text.map((part) => (typeof part === 'string' ? part : name(part))).join('');
}
