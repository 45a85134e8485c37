/**
 * The whole outside world of one `tandem start` process: fake Slack, OpenAI and GitHub, an HTTP target
 * for http_check, and a fresh store. `useStack()` registers the hooks and gives the test file a handle.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { SlackFakeServer, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import type { FakeGithubAppOptions } from '../fakes/github-server-app.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';
import { openAiReply, startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import {
  BOT_TOKEN,
  GITHUB_TOKEN,
  OPENAI_KEY,
  SIGNING_SECRET,
  botMessages,
  freshStore,
  messageWithButtons,
  startTandemProcess,
  visibleText,
  waitFor,
  type Running,
} from './harness.ts';
import type { PlanArtifact } from './plans.ts';

export const ESCALATE = 'S0ONCALL';

export interface Stack {
  slack: SlackFakeServer;
  openai: FakeOpenAi;
  github: FakeGithub;
  /** http://127.0.0.1:PORT: `/ok` answers 200 "healthy", anything else 500. */
  targetUrl: string;
  env: Record<string, string>;
  cwd: string;
  tandem: Running;
  restart(): Promise<void>;
  /** Mentions the bot with a task the model answers with `artifact`; resolves with the plan message. */
  planned(channel: string, user: string, task: string, artifact: PlanArtifact): Promise<{ thread: string; planMessage: FakeMessage }>;
  /** Texts of every message in a channel (top level and threads). */
  texts(channel: string): string[];
  /** The first bot message in the thread after the plan: the status board once the plan is approved. */
  board(channel: string, thread: string, planTs: string): FakeMessage | undefined;
  boardText(channel: string, thread: string, planTs: string): string;
}

/** `githubApp`: GitHub speaks to a GitHub App only and no GITHUB_TOKEN is set; `env` adds or overrides variables. */
export function useStack(options: { githubApp?: FakeGithubAppOptions; env?: () => Record<string, string> } = {}): Stack {
  const slack = new SlackFakeServer({ token: BOT_TOKEN });
  let target: Server;
  let store: Awaited<ReturnType<typeof freshStore>>;
  const stack = { slack } as Stack;

  beforeAll(async () => {
    [stack.openai, stack.github] = await Promise.all([
      startFakeOpenAi(),
      startFakeGithub(options.githubApp ? { app: options.githubApp } : {}),
      slack.start(),
    ]).then(([o, g]) => [o, g] as const);
    stack.github.addRepo('acme/api');
    stack.github.addRepo('acme/restart');
    slack.model.usergroups.set('SAPPROVERS', ['U5']);
    target = createServer((req, res) => {
      if (req.url === '/ok') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('healthy');
      res.writeHead(500).end('broken');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    stack.targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    store = await freshStore();
    stack.cwd = store.cwd;
    stack.env = {
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: stack.openai.url,
      PLANNER_MODEL: 'openai:gpt-4o',
      GITHUB_TOKEN,
      GITHUB_API_URL: stack.github.url,
      TANDEM_APPROVERS: 'U2,U3,SAPPROVERS',
      TANDEM_ESCALATE_TO: ESCALATE,
      TANDEM_HTTP_ALLOW: '127.0.0.1:*',
      ...store.env,
      ...options.env?.(),
    };
    if (options.githubApp) delete stack.env.GITHUB_TOKEN;
    stack.tandem = await startTandemProcess(stack.env, store.cwd, slack);
  }, 90_000);

  afterAll(async () => {
    await stack.tandem?.stop();
    target?.close();
    await Promise.all([slack.stop(), stack.github?.close(), stack.openai?.close().catch(() => undefined)]);
    await store?.cleanup();
  });

  stack.restart = async () => {
    await stack.tandem.stop();
    stack.tandem = await startTandemProcess(stack.env, stack.cwd, slack);
  };
  stack.planned = async (channel, user, task, artifact) => {
    stack.openai.enqueue(openAiReply.json(artifact));
    const sent = stack.tandem.driver.mention({ channel, user, text: `<@UBOT> ${task}` });
    expect((await sent).status).toBe(200);
    const planMessage = await waitFor(
      slack,
      () => messageWithButtons(slack, channel, sent.ts, 'Approve', 'Modify', 'Reject'),
      `the plan in ${channel}'s thread`,
    );
    return { thread: sent.ts, planMessage };
  };
  stack.texts = (channel) => slack.model.messages.filter((m) => m.channel === channel).map((m) => m.text);
  stack.board = (channel, thread, planTs) => botMessages(slack, channel, thread).find((m) => m.ts > planTs);
  stack.boardText = (channel, thread, planTs) => {
    const found = stack.board(channel, thread, planTs);
    return found ? visibleText(found) : '';
  };
  return stack;
}
