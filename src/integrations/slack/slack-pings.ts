/**
 * Which Slack mentions in a text reach many people at once: `<!channel>`, `<!here>`, `<!everyone>` and a
 * user group `<!subteam^S…>`, with or without a fallback label. The plan view flags them before approval,
 * and slack_notify refuses a text whose filled values made one the approver never read (contract §5).
 */

const PING = /<!(channel|here|everyone)(?:\|[^>]*)?>|<!subteam\^([A-Z0-9]+)(?:\|[^>]*)?>/g;

/** Each many-people ping in the text, once, as a reader says it: `@channel` or `user group S0123`. */
export function pingsIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(PING)) {
    const ping = match[1] ? `@${match[1]}` : `user group ${match[2]}`;
    if (!found.includes(ping)) found.push(ping);
  }
  return found;
}
