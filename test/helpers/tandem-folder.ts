import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openProcessStore, type TestDatabase } from './database.ts';

/**
 * The working folder of a Tandem process a test starts: its runbooks written under `cwd/runbooks`, its store chosen
 * by openProcessStore (PGlite under `cwd/data`), and the settings that point it at the fake Slack on any free port.
 * Destroy `database` after.
 */
export async function prepareTandemFolder(options: {
  cwd: string;
  slack: { token: string; signingSecret: string; apiUrl: string };
  runbooks: Record<string, string>;
}): Promise<{ env: Record<string, string>; database: TestDatabase | undefined }> {
  const runbooks = path.join(options.cwd, 'runbooks');
  mkdirSync(runbooks);
  for (const [name, yaml] of Object.entries(options.runbooks)) writeFileSync(path.join(runbooks, name), yaml);
  const store = await openProcessStore(path.join(options.cwd, 'data'));
  const { slack } = options;
  const env = {
    SLACK_BOT_TOKEN: slack.token,
    SLACK_SIGNING_SECRET: slack.signingSecret,
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    TANDEM_RUNBOOKS_DIR: runbooks,
  };
  return { env: { ...env, ...store.env }, database: store.database };
}
