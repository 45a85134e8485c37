/** What a person typed in the page's composer, read as Slack would: a message or a slash command. */
export type Composed = { kind: 'message'; text: string; mentionsBot: boolean } | { kind: 'command'; command: string; text: string };

/**
 * Slack clients escape `&`, `<`, `>` and turn a picked mention into `<@U…>`; here `@tandem` typed as
 * a word is the picked mention. `/tandem …` at the start is the slash command.
 */
export function compose(typed: string, bot: { userId: string; name: string }): Composed {
  const trimmed = typed.trim();
  const command = new RegExp(`^/${bot.name}(?:\\s+|$)`, 'i').exec(trimmed);
  if (command) return { kind: 'command', command: `/${bot.name}`, text: trimmed.slice(command[0].length).trim() };
  const escaped = trimmed.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const mention = new RegExp(`(^|[^\\w@])@${bot.name}\\b`, 'gi');
  const text = escaped.replace(mention, (_match, before: string) => `${before}<@${bot.userId}>`);
  return { kind: 'message', text, mentionsBot: text.includes(`<@${bot.userId}>`) };
}
