import type { Config } from '../config/config.ts';
import { createLogger } from '../observability/logger.ts';
import { withMcpSecrets } from '../runtime/mcp-secrets.ts';
import type { CommandOptions } from './command-options.ts';
import { portInUse, workspacePortNextTo } from './start-ports.ts';

const NO_SLACK = `Tandem has no Slack app to talk to yet. To connect one, set (in the environment or a .env file):
  SLACK_BOT_TOKEN=xoxb-…     the app's Bot User OAuth Token
  SLACK_APP_TOKEN=xapp-…     an app-level token with connections:write → Socket Mode, no public URL needed
    (or SLACK_SIGNING_SECRET=… for HTTP mode, with https://<host>/slack/events as the request URL)
Create the app from manifest.yml: https://api.slack.com/apps → Create New App → From a manifest.
Meanwhile, the local workspace below runs the same bot in your browser.
To see everything Tandem does before connecting anything, try the demo: npm start -- --demo
  (a scripted model and a GitHub sandbox on this machine; guided tasks in the page).`;

/**
 * What a start without SLACK_BOT_TOKEN prints: the Slack settings it would need, led by a line naming the bot token
 * when other Slack settings are set without it (they are ignored then, and the local workspace starts instead).
 */
export function noSlackText(slack: Pick<Config['slack'], 'appToken' | 'signingSecret'>): string {
  const setAlone = [slack.appToken && 'SLACK_APP_TOKEN', slack.signingSecret && 'SLACK_SIGNING_SECRET'].filter(Boolean);
  if (!setAlone.length) return NO_SLACK;
  return `${setAlone.join(' and ')} ${setAlone.length > 1 ? 'are' : 'is'} set but SLACK_BOT_TOKEN is not: without the bot token Tandem cannot reach Slack.\n${NO_SLACK}`;
}

const DEMO = `Tandem demo: a scripted model and a GitHub sandbox (demo/api, demo/web) on this machine; nothing leaves it.
Its data is kept apart from real runs, under DATA_DIR/demo. Open the page below and pick a guided task.`;

export async function startCommand(baseConfig: Readonly<Config>, options: CommandOptions): Promise<number> {
  const config = await withMcpSecrets(baseConfig);
  // Loaded once the MCP file is read: a start that a bad TANDEM_MCP_CONFIG stops never loads the app (Bolt, the
  // agent, the store; ~0.7 s of CPU), as a bad setting caught by the config never does.
  const { startTandem } = await import('../runtime/start-tandem.ts');
  const logger = createLogger({ level: config.logLevel, secrets: config.secrets });
  const demo = options.demo === true;
  const local = demo || options.local || config.slack.mode === 'none';
  // A stable address next to PORT, so the page can be bookmarked.
  const workspacePort = local ? workspacePortNextTo(config.port) : 0;
  if (demo) process.stdout.write(`${DEMO}\n\n`);
  else if (config.slack.mode === 'none' && !options.local) process.stdout.write(`${noSlackText(config.slack)}\n\n`);

  // Listened for from the start: a start that waits for its database (decision 024) stops on a SIGTERM too.
  const stopping = new AbortController();
  const stop = (signal: NodeJS.Signals) => {
    if (stopping.signal.aborted) return;
    logger.info({ signal }, 'stopping: no new work; letting running steps reach a recorded state');
    stopping.abort(new Error(`stopped by ${signal}`));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  const stopped = new Promise<void>((resolve) => stopping.signal.addEventListener('abort', () => resolve(), { once: true }));

  const started = await startTandem({ config, logger, local, demo, workspacePort, signal: stopping.signal }).catch((error: unknown) => {
    // Stopped while it waited: what it had started is closed already.
    if (!stopping.signal.aborted) throw portInUse(error, config.port) ?? error;
    if (error !== stopping.signal.reason) logger.warn({ err: error }, 'the start failed while stopping');
    return undefined;
  });
  if (started) {
    // The URL alone on its line: scripts take the rest of the line as the address, and the key is in it.
    if (started.workspace && !stopping.signal.aborted) process.stdout.write(`Local workspace: ${started.workspace.url}\nOpen it and mention @tandem there.\n`);
    await stopped;
    const closed = await started.close(20_000).then(
      () => true,
      (error: unknown) => (logger.error({ err: error }, 'shutdown failed'), false),
    );
    if (!closed) return 0;
  }
  logger.info({}, 'stopped');
  return 0;
}
