import type { App } from '@slack/bolt';
import type { Logger } from '../../observability/logger.ts';
import { describeError, tellPrivately, tellThread, TRY_AGAIN } from '../surface/replies.ts';
import type { SlackClient } from '../surface/slack-client.ts';

/** The last overload of app.error: the handler that gets the body too (extendedErrorHandler: true). */
type ExtendedErrorHandler = Parameters<App['error']>[0];

/** Bolt passes these when the app is built with `extendedErrorHandler: true`. */
interface ErrorArgs {
  error: Error;
  body?: unknown;
}

interface Where {
  channel?: string;
  user?: string;
  threadTs?: string;
}

/** Where a request came from, whatever its kind, so an unexpected failure can still be answered. */
export function whereFrom(body: Record<string, unknown>): Where {
  const event = body.event as { channel?: string; user?: string; thread_ts?: string; ts?: string } | undefined;
  if (event) return { channel: event.channel, user: event.user, threadTs: event.thread_ts ?? event.ts };
  const channel = (body.channel as { id?: string } | undefined)?.id ?? (body.channel_id as string | undefined);
  const user = (body.user as { id?: string } | undefined)?.id ?? (body.user_id as string | undefined);
  const message = body.message as { thread_ts?: string } | undefined;
  return { channel, user, threadTs: message?.thread_ts };
}

/** The one catch-all: anything a listener let through is logged and answered, never dropped silently. */
export function registerErrorHandler(app: App, client: SlackClient, logger: Logger): void {
  app.error((async ({ error, body }: ErrorArgs) => {
    const where = whereFrom((body ?? {}) as Record<string, unknown>);
    logger.error({ err: describeError(error), channel: where.channel }, 'unhandled error in a Slack listener');
    const text = `Something went wrong while handling that (${describeError(error)}). ${TRY_AGAIN}`;
    if (where.channel && where.user) await tellPrivately(client, logger, { channel: where.channel, user: where.user, threadTs: where.threadTs, text });
    else if (where.channel && where.threadTs) await tellThread(client, logger, { channel: where.channel, threadTs: where.threadTs, text });
  }) as ExtendedErrorHandler);
}
