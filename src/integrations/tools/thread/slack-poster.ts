/**
 * What slack_notify needs from Slack. The Slack integration implements it on the Web API
 * (chat.postMessage with message `metadata` carrying the marker; conversations.history to find it).
 */
export interface SlackPoster {
  /** Throws `SlackRefusedError` when Slack answered that it did not post (a definite failure); any other error leaves it unknown. */
  postMessage(input: { channel: string; text: string; marker: string }): Promise<{ ts: string; channel: string; permalink?: string }>;
  /** A message this bot posted in `channel` since `since` whose metadata carries `marker`. */
  findMessage(input: { channel: string; marker: string; since: Date }): Promise<{ ts: string; channel?: string; permalink?: string } | undefined>;
}

/**
 * Slack answered, and said no (`ok: false`: `channel_not_found`, `not_in_channel`, `is_archived`, `msg_too_long`…):
 * nothing was posted. Unlike a cut connection or a timeout, there is nothing to reconcile.
 */
export class SlackRefusedError extends Error {
  override readonly name = 'SlackRefusedError';
  constructor(readonly slackError: string) {
    super(`Slack refused it: ${slackError}`);
  }
}
