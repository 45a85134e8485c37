import { webApi } from '@slack/bolt';
import type { Octokit } from 'octokit';
import type { SlackClient } from '../bot/index.ts';
import type { Metrics } from '../observability/metrics.ts';

/** Counts GitHub errors (rate limits apart) on every octokit request; the error still reaches the tool. */
export function countGithubErrors(github: Octokit | undefined, metrics: Metrics): void {
  github?.hook.error('request', (error) => {
    const status = (error as { status?: number }).status;
    const headers = (error as { response?: { headers?: Record<string, string | undefined> } }).response?.headers ?? {};
    const limited = status === 429 || (status === 403 && headers['x-ratelimit-remaining'] === '0');
    metrics.apiErrors.inc({ api: 'github', kind: limited ? 'rate_limited' : 'error' });
    throw error;
  });
}

/** The Web API client pauses and retries on 429 by itself; it tells us each time. */
export function countSlackRateLimits(client: SlackClient, metrics: Metrics): void {
  client.on(webApi.WebClientEvent.RATE_LIMITED, () => metrics.apiErrors.inc({ api: 'slack', kind: 'rate_limited' }));
}
