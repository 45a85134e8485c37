import { randomBytes } from 'node:crypto';
import type { Config } from '../config/config.ts';
import type { LocalWorkspace } from '../workspace/local/index.ts';

/**
 * The configuration the unchanged Bolt app needs to talk to the local workspace: HTTP mode, its token
 * and signing secret, its Web API URL; `http_check` may reach the workspace itself so the example
 * runbooks work with no other network.
 */
export function localSlackConfig(config: Readonly<Config>, workspace: LocalWorkspace, signingSecret: string): Readonly<Config> {
  const host = new URL(workspace.url).hostname;
  return Object.freeze({
    ...config,
    slack: { botToken: workspace.botToken, appToken: undefined, signingSecret, apiUrl: workspace.slackApiUrl, mode: 'http' as const },
    httpAllow: [...new Set([...config.httpAllow, host, 'localhost'])],
    secrets: [...config.secrets, workspace.botToken, signingSecret],
  });
}

export const newLocalSigningSecret = () => randomBytes(16).toString('hex');
