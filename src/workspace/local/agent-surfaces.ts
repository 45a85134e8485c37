import type { WorkspaceModel } from '../slack-fake/workspace-model.ts';

/** What Slack's agent surfaces show on one thread: its "is planning…" line and its agent session. */
export interface ThreadSurfaces {
  /** The bot's status under the thread, as Slack shows it after the app's name; null when there is none. */
  status: string | null;
  /** The agent session's last status (processing, suspended, closed…); null when the bot never opened one. */
  session: string | null;
}

/** The agent session's status on a thread now: the last one the bot set. */
export function sessionStatus(model: WorkspaceModel, channel: string, threadTs: string): string | null {
  for (let i = model.sessionLog.length - 1; i >= 0; i -= 1) {
    const entry = model.sessionLog[i]!;
    if (entry.channel === channel && entry.threadTs === threadTs) return entry.status;
  }
  return null;
}

/** Both surfaces of one thread, for the page. */
export function threadSurfaces(model: WorkspaceModel, channel: string, threadTs: string): ThreadSurfaces {
  return { status: model.threadStatus.get(`${channel}:${threadTs}`) ?? null, session: sessionStatus(model, channel, threadTs) };
}
