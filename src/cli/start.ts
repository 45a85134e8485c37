import type { Config } from '../config/config.ts';
import { createLogger } from '../observability/logger.ts';
import { withMcpSecrets } from '../runtime/mcp-secrets.ts';
import { startTandem } from '../runtime/start-tandem.ts';
import type { CommandOptions } from './command-options.ts';

const NO_SLACK = `Tandem has no Slack app to talk to yet. To connect one, set (in the environment or a .env file):
  SLACK_BOT_TOKEN=xoxb-…     the app's Bot User OAuth Token
  SLACK_APP_TOKEN=xapp-…     an app-level token with connections:write → Socket Mode, no public URL needed
    (or SLACK_SIGNING_SECRET=… for HTTP mode, with https://<host>/slack/events as the request URL)
Create the app from manifest.yml: https://api.slack.com/apps → Create New App → From a manifest.
Meanwhile, the local workspace below runs the same bot in your browser.
To see everything Tandem does before connecting anything, try the demo: npm start -- --demo
  (a scripted model and a GitHub sandbox on this machine; guided tasks in the page).`;

const DEMO = `Tandem demo: a scripted model and a GitHub sandbox (demo/api, demo/web) on this machine; nothing leaves it.
Its data is kept apart from real runs, under DATA_DIR/demo. Open the page below and pick a guided task.`;

export async function startCommand(baseConfig: Readonly<Config>, options: CommandOptions): Promise<number> {
  const config = await withMcpSecrets(baseConfig);
  const logger = createLogger({ level: config.logLevel, secrets: config.secrets });
  const demo = options.demo === true;
  const local = demo || options.local || config.slack.mode === 'none';
  if (demo) process.stdout.write(`${DEMO}\n\n`);
  else if (config.slack.mode === 'none' && !options.local) process.stdout.write(`${NO_SLACK}\n\n`);

  // A stable address next to PORT, so the page can be bookmarked.
  const runtime = await startTandem({ config, logger, local, demo, workspacePort: config.port ? config.port + 1 : 0 });
  // The URL alone on its line: scripts take the rest of the line as the address, and the key is in it.
  if (runtime.workspace) process.stdout.write(`Local workspace: ${runtime.workspace.url}\nOpen it and mention @tandem there.\n`);

  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'stopping: no new work; letting running steps reach a recorded state');
      runtime.close(20_000).then(
        () => {
          logger.info({}, 'stopped');
          resolve();
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          resolve();
        },
      );
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  return 0;
}
