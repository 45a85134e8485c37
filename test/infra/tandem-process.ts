/**
 * A real `tandem start` process for the infrastructure tests that break what only a process can feel: its
 * PGlite folder's permissions taken away while it runs. Root writes through any chmod, so the process runs
 * as the unprivileged `nobody` (setpriv) against a DATA_DIR that `nobody` owns; the test then takes the
 * write bits away and gives them back as root. Slack and GitHub are the fakes on loopback.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { SlackDriver, SlackFakeServer, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';

const TOKEN = 'xoxb-process-outage';
const SECRET = 'process-outage-secret';
const NOBODY = 65534;

/** Root with setpriv: the only way here to run a process that file permissions bind. */
export const canRunAsNobody = (): boolean =>
  process.getuid?.() === 0 && spawnSync('setpriv', ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', 'true']).status === 0;

export interface TandemProcess {
  slack: SlackFakeServer;
  github: FakeGithub;
  driver: SlackDriver;
  baseUrl: string;
  /** PGlite's folder (owned by `nobody`). */
  dataDir: string;
  child: ChildProcess;
  /** What the process wrote to stdout and stderr so far (pino's JSON lines). */
  output(): string;
  thread(ts: string): FakeMessage[];
  planIn(ts: string): FakeMessage | undefined;
  approve(ts: string): Promise<void>;
  issues(): number;
  /** Every file and folder under DATA_DIR read-only (`false`) or writable again by its owner (`true`). */
  setWritable(writable: boolean): void;
  close(): Promise<void>;
}

export async function startTandemAsNobody(runbooks: Record<string, string>): Promise<TandemProcess> {
  const home = mkdtempSync(path.join(tmpdir(), 'tandem-nobody-'));
  chmodSync(home, 0o755);
  mkdirSync(path.join(home, 'runbooks'));
  for (const [name, yaml] of Object.entries(runbooks)) writeFileSync(path.join(home, 'runbooks', name), yaml);
  const dataDir = path.join(home, 'data');
  mkdirSync(dataDir);
  chownSync(home, NOBODY, NOBODY);
  chownSync(dataDir, NOBODY, NOBODY);
  const slack = await new SlackFakeServer({ token: TOKEN }).start();
  const github = await startFakeGithub();
  github.addRepo('acme/api');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: slack.apiUrl,
    GITHUB_TOKEN: 'ghp_processoutagetokenprocessoutage12',
    GITHUB_API_URL: github.url,
    TANDEM_APPROVERS: 'U2',
    TANDEM_RUNBOOKS_DIR: path.join(home, 'runbooks'),
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'info',
  };
  const bin = path.resolve(import.meta.dirname, '../../bin/tandem.js');
  const ids = ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups'];
  const child = spawn('setpriv', [...ids, process.execPath, bin, 'start'], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    // A start that never says it runs is stopped here: no caller gets a handle to stop it, and left running it loads
    // the machine for the files after it (one ran on for 24 minutes past its failed test, session 19).
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tandem was not running within 60 s:\n${out.slice(-2000)}`));
    }, 60_000);
    const look = () => {
      const line = out.split('\n').find((l) => l.includes('"Tandem is running"'));
      if (!line) return;
      clearTimeout(timer);
      child.stdout!.off('data', look);
      resolve(Number((JSON.parse(line) as { port: number }).port));
    };
    child.stdout!.on('data', look);
    child.once('exit', (code) => reject(new Error(`tandem exited (${code}) before it was running:\n${out.slice(-2000)}`)));
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const driver = new SlackDriver({ eventsUrl: `${baseUrl}/slack/events`, signingSecret: SECRET, fake: slack });
  const thread = (ts: string) => slack.model.thread('C1', ts).filter((m) => m.user === slack.model.bot.userId);
  const planIn = (ts: string) => thread(ts).find((m) => JSON.stringify(m.blocks ?? '').includes(PLAN_APPROVE_ACTION));
  return {
    slack,
    github,
    driver,
    baseUrl,
    dataDir,
    child,
    output: () => out,
    thread,
    planIn,
    async approve(ts) {
      await slack.waitUntil(() => planIn(ts) !== undefined, 20_000, 'the plan in the thread');
      const answer = await driver.clickButtonIn(planIn(ts)!, PLAN_APPROVE_ACTION, 'U2');
      if (answer.status !== 200) throw new Error(`the Approve click got ${answer.status}`);
    },
    issues: () => github.repos.get('acme/api')!.issues.length,
    setWritable(writable) {
      spawnSync('chmod', ['-R', writable ? 'u+w' : 'a-w', dataDir], { stdio: 'ignore' });
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await Promise.all([slack.stop(), github.close()]);
      rmSync(home, { recursive: true, force: true });
    },
  };
}
