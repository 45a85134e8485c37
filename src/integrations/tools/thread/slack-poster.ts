/**
 * What slack_notify needs from Slack. The Slack integration implements it on the Web API
 * (chat.postMessage with message `metadata` carrying the marker; conversations.history to find it).
 */
export interface SlackPoster {
  postMessage(input: { channel: string; text: string; marker: string }): Promise<{ ts: string; channel: string; permalink?: string }>;
  /** A message this bot posted in `channel` since `since` whose metadata carries `marker`. */
  findMessage(input: { channel: string; marker: string; since: Date }): Promise<{ ts: string; channel?: string; permalink?: string } | undefined>;
}
