/**
 * The Slack id of a request, which names it in the inbox: an event's `event_id` (the same on Slack's
 * retries), and for a click, a view submission or a command its `trigger_id` (one per interaction).
 * Requests that change nothing (menus asking for options, a closed modal) have none and are not stored.
 */
export function inboxKey(body: Record<string, unknown>): string | undefined {
  if (body.type === 'event_callback') return typeof body.event_id === 'string' ? `event:${body.event_id}` : undefined;
  if (typeof body.command === 'string') return typeof body.trigger_id === 'string' ? `command:${body.trigger_id}` : undefined;
  if (body.type === 'block_actions') return interactionKey('action', body);
  if (body.type === 'view_submission') return interactionKey('view', body);
  return undefined;
}

function interactionKey(kind: string, body: Record<string, unknown>): string | undefined {
  if (typeof body.trigger_id === 'string') return `${kind}:${body.trigger_id}`;
  // Without a trigger id, what was clicked by whom and when still names one interaction.
  const user = (body.user as { id?: unknown } | undefined)?.id;
  const action = (body.actions as { action_id?: unknown; action_ts?: unknown }[] | undefined)?.[0];
  const view = body.view as { id?: unknown; hash?: unknown } | undefined;
  const parts = kind === 'action' ? [user, action?.action_id, action?.action_ts] : [user, view?.id, view?.hash];
  return parts.every((part) => typeof part === 'string') ? `${kind}:${parts.join(':')}` : undefined;
}

/**
 * What is kept of a request until it is handled: all of it but the legacy verification token and, in a
 * click, the blocks of the clicked message. Those are the bot's own message, which Slack keeps and sends
 * back whole with every click; they are most of a click's size, and storing them made the write before
 * each ack several times slower under a burst. What the click means (who, which button, its value, the
 * message's ts and thread) stays; a click handled again after a crash reads the blocks back from Slack.
 */
export function storableBody(body: Record<string, unknown>): Record<string, unknown> {
  const { token: _token, ...rest } = body;
  const message = rest.message as Record<string, unknown> | undefined;
  if (rest.type !== 'block_actions' || typeof message !== 'object' || message === null || !('blocks' in message)) return rest;
  const { blocks: _blocks, ...messageWithoutBlocks } = message;
  return { ...rest, message: messageWithoutBlocks };
}
