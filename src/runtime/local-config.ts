import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { Config } from '../config/config.ts';
import type { LocalWorkspace } from '../workspace/local/index.ts';

/** Local mode listens on the loopback interface only: the bot's port and the workspace's. */
export const LOCAL_HOST = '127.0.0.1';

/**
 * The configuration the unchanged Bolt app needs to talk to the local workspace: HTTP mode, its token
 * and signing secret, its Web API URL. `http_check` may reach the bot's own health URL (the bundled
 * check-health runbook's example) and no other local port: each entry names its port, since an entry
 * without one would allow only port 80.
 */
export function localSlackConfig(config: Readonly<Config>, workspace: LocalWorkspace, signingSecret: string, botPort: number): Readonly<Config> {
  return Object.freeze({
    ...config,
    slack: {
      botToken: workspace.botToken,
      appToken: undefined,
      signingSecret,
      apiUrl: workspace.slackApiUrl,
      mode: 'http' as const,
      ...(config.slack.messageNote ? { messageNote: config.slack.messageNote } : {}),
    },
    httpAllow: [...new Set([...config.httpAllow, `${LOCAL_HOST}:${botPort}`, `localhost:${botPort}`])],
    secrets: [...config.secrets, workspace.botToken, signingSecret, workspace.key],
  });
}

export const newLocalSigningSecret = () => randomBytes(16).toString('hex');

/**
 * The port the bot will listen on, known before the tools are built (the allow-list names it): the
 * one asked for, or for 0 a free loopback port picked now.
 */
export function localBotPort(requested: number): Promise<number> {
  if (requested !== 0) return Promise.resolve(requested);
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, LOCAL_HOST, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
