/**
 * The real runtime for the infrastructure tests: Tandem in this process, Slack and GitHub as fakes on
 * loopback, a runbook that waits, files an issue and waits again (no model needed), and the store given
 * by the test (PostgreSQL behind a TCP proxy, or PGlite in a folder).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { loadConfig } from '../../src/config/config.ts';
import { startTandem, type SlackTimings, type TandemRuntime } from '../../src/runtime/start-tandem.ts';
import { SlackDriver, SlackFakeServer, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';

export const TOKEN = 'xoxb-outage-test';
export const SECRET = 'outage-signing-secret';
export const TASK = '<@UBOT> file the outage issue';
/** How long an owed message that failed waits to be sent again (the product waits 5 s). */
const OWED_RETRY_MS = 500;

const RUNBOOK = `name: outage
pattern: "file the outage issue"
plan:
  goal: File the outage drill issue
  confidence: 0.9
  steps:
    - { id: s1, title: Wait a moment, tool: wait, args: { seconds: 1 } }
    - { id: s2, title: File the issue, tool: github_create_issue, args: { repo: acme/api, title: Outage drill, body: A drill }, dependsOn: [s1] }
    - { id: s3, title: Settle, tool: wait, args: { seconds: 1 }, dependsOn: [s2] }
`;

/** A run that owes its thread a question, then (when GitHub fails the write) an escalation, then its summary. */
const QUESTION_RUNBOOK = `name: outage-question
pattern: "drill with a question"
plan:
  goal: File the outage drill issue once someone says so
  confidence: 0.9
  steps:
    - { id: s1, title: Get ready, tool: wait, args: { seconds: 2 } }
    - { id: s2, title: Ask whether to file, tool: ask_human, args: { question: Shall I file the drill issue? }, dependsOn: [s1] }
    - { id: s3, title: File the issue, tool: github_create_issue, args: { repo: acme/api, title: Outage drill, body: A drill }, dependsOn: [s2] }
    - { id: s4, title: Settle, tool: wait, args: { seconds: 1 }, dependsOn: [s3] }
`;

/** A plan that only asks the requester first (no step runs until they answer). */
const ASK_FIRST_RUNBOOK = `name: outage-ask-first
pattern: "drill asking first"
plan:
  goal: Find out which drill to run
  confidence: 0.9
  steps: []
  questions: [Which drill should I run?]
`;

export interface OutageStack {
  slack: SlackFakeServer;
  github: FakeGithub;
  runtime: TandemRuntime;
  driver: SlackDriver;
  baseUrl: string;
  dir: string;
  /** The bot's messages in a thread. */
  thread(ts: string): FakeMessage[];
  planIn(ts: string): FakeMessage | undefined;
  /** Approves the plan in the thread as the approver U2. */
  approve(ts: string): Promise<void>;
  issues(): number;
  close(): Promise<void>;
}

/** `store`: PostgreSQL, a PGlite folder, or `pglite` for a PGlite folder in the stack's own temporary folder. */
export async function startOutageStack(
  store: { DATABASE_URL: string } | { DATA_DIR: string } | 'pglite',
  env: Record<string, string> = {},
  extra: { slackTimings?: SlackTimings; logs?: Record<string, unknown>[]; port?: number } = {},
): Promise<OutageStack> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tandem-outage-'));
  mkdirSync(path.join(dir, 'runbooks'));
  writeFileSync(path.join(dir, 'runbooks', 'outage.yml'), RUNBOOK);
  // The same plan for a task with a long note (a request that takes room in the store).
  writeFileSync(
    path.join(dir, 'runbooks', 'outage-noted.yml'),
    RUNBOOK.replace('name: outage', 'name: outage-noted').replace('issue"', 'issue noting {note}"'),
  );
  writeFileSync(path.join(dir, 'runbooks', 'outage-question.yml'), QUESTION_RUNBOOK);
  writeFileSync(path.join(dir, 'runbooks', 'outage-ask-first.yml'), ASK_FIRST_RUNBOOK);
  const slack = await new SlackFakeServer({ token: TOKEN }).start();
  const github = await startFakeGithub();
  github.addRepo('acme/api');
  const config = loadConfig({
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: slack.apiUrl,
    GITHUB_TOKEN: 'ghp_outagetokenoutagetokenoutage12345',
    GITHUB_API_URL: github.url,
    TANDEM_APPROVERS: 'U2',
    TANDEM_RUNBOOKS_DIR: path.join(dir, 'runbooks'),
    ...(store === 'pglite' ? { DATA_DIR: path.join(dir, 'data') } : store),
    ...env,
  });
  // `logs` collects what an operator would read (warnings and worse), parsed.
  const { logs } = extra;
  const logger = logs
    ? pino({ level: 'warn' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) })
    : pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  // A message Slack did not take is sent again after half a second instead of five, so an outage's end is seen at once.
  const slackTimings = { owedRetryMs: OWED_RETRY_MS, ...extra.slackTimings };
  const runtime = await startTandem({ config, logger, port: extra.port ?? 0, slackTimings });
  const baseUrl = `http://127.0.0.1:${runtime.port}`;
  const driver = new SlackDriver({ eventsUrl: `${baseUrl}/slack/events`, signingSecret: SECRET, fake: slack });
  const thread = (ts: string) => slack.model.thread('C1', ts).filter((m) => m.user === slack.model.bot.userId);
  const planIn = (ts: string) => thread(ts).find((m) => JSON.stringify(m.blocks ?? '').includes(PLAN_APPROVE_ACTION));
  return {
    slack,
    github,
    runtime,
    driver,
    baseUrl,
    dir,
    thread,
    planIn,
    async approve(ts) {
      await slack.waitUntil(() => planIn(ts) !== undefined, 20_000, 'the plan in the thread');
      const answer = await driver.clickButtonIn(planIn(ts)!, PLAN_APPROVE_ACTION, 'U2');
      if (answer.status !== 200) throw new Error(`the Approve click got ${answer.status}`);
    },
    issues: () => github.repos.get('acme/api')!.issues.length,
    async close() {
      await runtime.close(5_000);
      await Promise.all([slack.stop(), github.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The run's summary reached its thread. */
export const summarised = (messages: FakeMessage[]): boolean => messages.some((m) => m.text.startsWith(':white_check_mark: Succeeded'));

export async function health(baseUrl: string): Promise<{ status: number; body: { ok: boolean; reason?: string } }> {
  const response = await fetch(`${baseUrl}/healthz`);
  return { status: response.status, body: (await response.json()) as { ok: boolean; reason?: string } };
}

export async function metricsText(baseUrl: string): Promise<string> {
  return (await fetch(`${baseUrl}/metrics`)).text();
}
