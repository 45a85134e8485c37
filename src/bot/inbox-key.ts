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

/** What is kept of a request until it is handled: all of it but the legacy verification token. */
export function storableBody(body: Record<string, unknown>): Record<string, unknown> {
  const { token: _token, ...rest } = body;
  return rest;
}
