import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { BotDeps } from '../../bot-deps.ts';
import { describeError, tellPrivately } from '../../surface/replies.ts';
import { refusedFollowUp } from './mention.ts';

const StoppedEvent = z.object({ channel: z.string().min(1), user: z.string().min(1), thread_ts: z.string().min(1) });

/**
 * Slack's own Stop button on an agent session: the same as "cancel" in the run's thread, with the
 * same rule on who may. Slack's redeliveries never get here (the inbox drops them); a Stop for a run
 * that already ended, or for a thread without a run, changes nothing.
 */
export function registerSessionStopped(app: App, deps: BotDeps): void {
  app.event('agent_session_stopped', async ({ event, body, client }) => {
    const eventId = (body as { event_id?: string }).event_id;
    const parsed = StoppedEvent.safeParse(event);
    if (!parsed.success) {
      deps.logger.warn({ eventId }, 'agent_session_stopped without channel, user or thread; ignored');
      return;
    }
    const { channel, user, thread_ts: threadTs } = parsed.data;
    try {
      const outcome = await deps.agent.followUp({ conversation: { channel, threadTs }, userId: user, text: 'cancel' });
      if (typeof outcome === 'object') await tellPrivately(client, deps.logger, { channel, user, threadTs, text: refusedFollowUp(outcome.refused) });
    } catch (error) {
      deps.logger.error({ err: describeError(error), channel, eventId }, 'handling Stop failed');
    }
  });
}
