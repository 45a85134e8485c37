import type { Conversation, RunStatus } from '../../agent/ports/run-store.ts';
import type { Logger } from '../../observability/logger.ts';
import { describeError } from './replies.ts';
import type { SlackClient } from './slack-client.ts';

/** Slack's lifecycle of an agent session in a thread. */
export type SessionStatus = 'processing' | 'suspended' | 'closed';

/** The agent session follows the run: working, or waiting for a person (approval, an answer, a Confirm, an escalation). */
export const SESSION_OF_RUN: Partial<Record<RunStatus, SessionStatus>> = {
  planning: 'processing',
  executing: 'processing',
  'rolling-back': 'processing',
  'awaiting-approval': 'suspended',
  'awaiting-answer': 'suspended',
  paused: 'suspended',
};

/**
 * Slack's agent surfaces, used where the workspace takes them and skipped where it does not: the
 * thread's "is planning…" status (assistant.threads.setStatus) and the agent session's lifecycle
 * (agents.sessions.setStatus). Which one an app may use depends on how it is installed, so the first
 * refusal of each is remembered for the process (one bot token is one workspace) and logged once;
 * nothing of it shows in the thread.
 */
export class AgentStatus {
  private threadStatusRefused = false;
  private sessionsRefused = false;
  /** The last session status sent per run, so a board edit a second does not repeat it. */
  private readonly sessionOf = new Map<string, SessionStatus>();

  constructor(
    private readonly client: SlackClient,
    private readonly logger: Logger,
  ) {}

  /** True when Slack shows the status in the thread; false means the caller says it with a message. */
  async threadStatus(conversation: Conversation, status: string): Promise<boolean> {
    if (this.threadStatusRefused) return false;
    try {
      await this.client.assistant.threads.setStatus({ channel_id: conversation.channel, thread_ts: conversation.threadTs, status, loading_messages: [status] });
      return true;
    } catch (error) {
      if (isPlatformRefusal(error)) {
        this.threadStatusRefused = true;
        this.logger.info({ err: describeError(error) }, 'Slack does not take assistant thread status here; showing "planning…" as a message');
      } else {
        this.logger.warn({ err: describeError(error) }, 'could not set the thread status; showing "planning…" as a message');
      }
      return false;
    }
  }

  /** Moves the run's agent session along; a no-op where sessions are not on or the status is unchanged. */
  async session(runId: string, conversation: Conversation, status: SessionStatus, title?: string): Promise<void> {
    const current = this.sessionOf.get(runId);
    // A closed session stays closed: a board edit still in flight when the run ended must not reopen it.
    if (this.sessionsRefused || current === status || current === 'closed') return;
    this.sessionOf.set(runId, status);
    if (this.sessionOf.size > 2000) this.sessionOf.delete(this.sessionOf.keys().next().value!);
    try {
      await this.client.agents.sessions.setStatus({
        channel_id: conversation.channel,
        thread_ts: conversation.threadTs,
        status,
        ...(title ? { title: title.slice(0, 200) } : {}),
      });
    } catch (error) {
      if (isPlatformRefusal(error)) {
        this.sessionsRefused = true;
        this.logger.info({ err: describeError(error) }, 'Slack agent sessions are not on for this app; not reporting session status');
        return;
      }
      this.sessionOf.delete(runId); // try again on the next change
      this.logger.warn({ err: describeError(error), runId }, 'could not set the agent session status');
    }
  }
}

/** An answer from Slack (not a network failure or a rate limit): the method is not for this app or place. */
function isPlatformRefusal(error: unknown): boolean {
  const e = error as { code?: string; data?: { error?: string } } | undefined;
  return e?.code === 'slack_webapi_platform_error' && e.data?.error !== 'ratelimited';
}
