/**
 * The world the chaos bench breaks: fake Slack, GitHub and OpenAI on loopback, PostgreSQL behind a TCP
 * proxy that can cut every connection (when TEST_DATABASE_URL or DATABASE_URL is set; else PGlite in a
 * temporary folder), and real `tandem start` processes that can be killed with SIGKILL and restarted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SlackDriver, SlackFakeServer } from '../../src/workspace/slack-fake/index.ts';
import { startFakeGithub, type FakeGithub } from '../../test/fakes/github-server.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../test/fakes/openai-server.ts';
import { startTcpProxy, type TcpProxy } from '../../test/fakes/tcp-proxy.ts';
import { freshPostgres } from './fresh-postgres.ts';

export const TOKEN = 'xoxb-chaos';
export const SECRET = 'chaos-signing-secret';
export const RUNBOOK_TASK = '<@UBOT> file the chaos issue';

/** The plan every run makes (a runbook, or the model for the runs whose model fails first). */
export const PLAN = {
  goal: 'File the chaos issue',
  confidence: 0.9,
  steps: [
    { id: 's1', title: 'Settle', tool: 'wait', args: { seconds: 1 }, dependsOn: [] },
    { id: 's2', title: 'File the issue', tool: 'github_create_issue', args: { repo: 'acme/api', title: 'Chaos drill', body: 'A drill' }, dependsOn: ['s1'] },
    { id: 's3', title: 'Settle more', tool: 'wait', args: { seconds: 1 }, dependsOn: ['s2'] },
  ],
  rollback: [],
};

const RUNBOOK = `name: chaos
pattern: "file the chaos issue"
plan:
  goal: ${PLAN.goal}
  confidence: 0.9
  steps:
${PLAN.steps.map((s) => `    - ${JSON.stringify({ id: s.id, title: s.title, tool: s.tool, args: s.args, dependsOn: s.dependsOn })}`).join('\n')}
`;

export interface Replica {
  child: ChildProcess;
  driver: SlackDriver;
  port: number;
  runningAt: number;
}

export interface ChaosWorld {
  slack: SlackFakeServer;
  github: FakeGithub;
  openai: FakeOpenAi;
  /** Undefined on PGlite: there is no connection to cut. */
  proxy: TcpProxy | undefined;
  engine: 'postgres' | 'pglite';
  startReplica(): Promise<Replica>;
  close(): Promise<void>;
}

export async function startChaosWorld(): Promise<ChaosWorld> {
  const cwd = mkdtempSync(path.join(tmpdir(), 'tandem-chaos-'));
  mkdirSync(path.join(cwd, 'runbooks'));
  writeFileSync(path.join(cwd, 'runbooks', 'chaos.yml'), RUNBOOK);
  const slack = await new SlackFakeServer({ token: TOKEN }).start();
  const [github, openai] = await Promise.all([startFakeGithub(), startFakeOpenAi()]);
  github.addRepo('acme/api');
  const database = await freshPostgres();
  let proxy: TcpProxy | undefined;
  if (database) {
    const url = new URL(database.url);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: slack.apiUrl,
    GITHUB_TOKEN: 'ghp_chaostokenchaostokenchaostoken1234',
    GITHUB_API_URL: github.url,
    OPENAI_API_KEY: 'sk-chaos-00000000000000000000',
    OPENAI_BASE_URL: openai.url,
    PLANNER_MODEL: 'openai:gpt-4o',
    TANDEM_APPROVERS: 'U2',
    PORT: '0',
    LOG_LEVEL: 'info',
    TANDEM_RUNBOOKS_DIR: path.join(cwd, 'runbooks'),
    ...(database && proxy ? { DATABASE_URL: proxy.urlFor(database.url) } : { DATA_DIR: path.join(cwd, 'data') }),
  };
  const bin = path.resolve(import.meta.dirname, '../../bin/tandem.js');
  const children = new Set<ChildProcess>();

  const startReplica = (): Promise<Replica> => {
    const child = spawn(process.execPath, [bin, 'start'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    child.once('exit', () => children.delete(child));
    let out = '';
    child.stderr!.resume();
    return new Promise((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split('\n').find((l) => l.includes('"Tandem is running"'));
        if (!line) return;
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        child.off('exit', onExit);
        const port = Number((JSON.parse(line) as { port: number }).port);
        resolve({
          child,
          port,
          runningAt: Date.now(),
          driver: new SlackDriver({ eventsUrl: `http://127.0.0.1:${port}/slack/events`, signingSecret: SECRET, fake: slack }),
        });
      };
      const onExit = (code: number | null) => reject(new Error(`tandem exited (${code}) before it was running:\n${out.slice(-2000)}`));
      child.stdout!.on('data', onData);
      child.once('exit', onExit);
    });
  };

  return {
    slack,
    github,
    openai,
    proxy,
    engine: database ? 'postgres' : 'pglite',
    startReplica,
    async close() {
      for (const child of children) child.kill('SIGKILL');
      proxy?.restore();
      await Promise.all([slack.stop(), github.close(), openai.close().catch(() => undefined)]);
      await proxy?.close();
      await database?.drop();
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}
