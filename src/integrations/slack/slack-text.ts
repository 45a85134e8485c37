/**
 * The one escaping of text for Slack: the bot's views and the slack_notify tool both use it, so
 * text a person, a tool or a model wrote cannot become a mention (`<!channel>`, `<@U…>`) or a link.
 */

/** Slack's three control characters in mrkdwn; anything a person or tool wrote goes through this. */
export function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Escapes like escapeText but keeps user, user-group and channel mentions working: the agent's
 * sentences name people (`<@U…>`), and nothing else in them may become markup (`<!channel>`, links).
 */
export function escapeKeepingMentions(text: string): string {
  return escapeText(text).replace(/&lt;(@[UW][A-Z0-9]+|!subteam\^S[A-Z0-9]+|#C[A-Z0-9]+)&gt;/g, '<$1>');
}
