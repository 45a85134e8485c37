import { webApi } from '@slack/bolt';
import type { Config } from '../config/config.ts';
import type { Logger } from '../observability/logger.ts';
import { slackLogger } from './slack-logger.ts';

export type SlackClient = InstanceType<typeof webApi.WebClient>;

/**
 * Web API options for a chat bot: a person is waiting, so a call gives up after ~10 s and a few
 * retries rather than the client's default 10 retries over half an hour. 429s wait out Retry-After.
 */
export function slackClientOptions(config: Pick<Config, 'slack'>, logger: Logger) {
  return {
    slackApiUrl: config.slack.apiUrl,
    timeout: 10_000,
    retryConfig: { retries: 4, factor: 2, minTimeout: 500, maxTimeout: 5_000, randomize: true },
    logger: slackLogger(logger, 'slack-web-api'),
  };
}

export function createSlackClient(config: Pick<Config, 'slack'>, logger: Logger, overrides: { retries?: number; timeoutMs?: number } = {}): SlackClient {
  const options = slackClientOptions(config, logger);
  if (overrides.retries !== undefined) options.retryConfig = { ...options.retryConfig, retries: overrides.retries };
  if (overrides.timeoutMs !== undefined) options.timeout = overrides.timeoutMs;
  return new webApi.WebClient(config.slack.botToken, options);
}
