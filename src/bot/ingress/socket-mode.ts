import { SocketModeReceiver, type App, type CustomRoute } from '@slack/bolt';
import type { Logger } from '../../observability/logger.ts';
import { slackLogger } from '../surface/slack-logger.ts';

export interface SocketModeConnection {
  receiver: SocketModeReceiver;
  /** Serves the HTTP routes at once and connects the socket in the background, retrying until it works. */
  start(app: App): void;
  stop(): Promise<void>;
}

/**
 * Socket Mode, started so that a Slack that cannot be reached at start-up is reported and retried
 * rather than crashing the process: Bolt's own start rejects on the first failed connection.
 */
export function createSocketModeConnection(options: {
  appToken: string;
  /** The Web API base: `apps.connections.open` must go where every other call goes (GovSlack, a proxy, a test). */
  apiUrl: string;
  port: number;
  customRoutes: CustomRoute[];
  logger: Logger;
  maxDelayMs?: number;
}): SocketModeConnection {
  const receiver = new SocketModeReceiver({
    appToken: options.appToken,
    logger: slackLogger(options.logger, 'bolt'),
    customRoutes: options.customRoutes,
    // The receiver hands installerOptions.clientOptions to its Socket Mode client's WebClient; without
    // slackApiUrl that client asks https://slack.com/api/ for the socket URL whatever is configured.
    // Retries stay the SDK's own (many, for a reconnecting socket), so only the URL is set.
    installerOptions: { port: options.port, clientOptions: { slackApiUrl: options.apiUrl } },
  });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const retry = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      receiver.client.start().then(
        () => options.logger.info({}, 'Slack Socket Mode connected'),
        (error: unknown) => {
          options.logger.warn({ err: error instanceof Error ? error.message : String(error), retryInMs: delayMs }, 'Slack Socket Mode unreachable, retrying');
          retry(Math.min(delayMs * 2, options.maxDelayMs ?? 30_000));
        },
      );
    }, delayMs);
    timer.unref();
  };

  return {
    receiver,
    start(app) {
      // app.start() opens the HTTP listener (health, metrics) before it connects the socket.
      app.start().then(
        () => options.logger.info({}, 'Slack Socket Mode connected'),
        (error: unknown) => {
          options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'Slack Socket Mode unreachable, retrying');
          retry(1000);
        },
      );
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      // Disconnecting a socket that never connected can wait forever; shutdown must not.
      const gaveUp = new Promise<void>((resolve) => setTimeout(resolve, 2000).unref());
      await Promise.race([receiver.stop().catch(() => undefined), gaveUp]);
    },
  };
}
