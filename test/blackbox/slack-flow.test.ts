/**
 * CONTRACT §4–§6 through Slack's wire: one `tandem start` process, fake Slack / OpenAI / GitHub, each
 * test in its own channel. Expectations come from CONTRACT.md only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackFakeServer, stateFromView, type FakeMessage } from '../../src/workspace/slack-fake/index.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';
import { openAiReply, startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import {
  BOT_TOKEN,
  GITHUB_TOKEN,
  OPENAI_KEY,
  SIGNING_SECRET,
  botMessages,
  buttonTexts,
  clickByText,
  freshStore,
  hasButtons,
  messageWithButtons,
  poll,
  startTandemProcess,
  visibleText,
  waitFor,
  type Running,
} from './harness.ts';
import { plan, step, type PlanArtifact } from './plans.ts';

const ESCALATE = 'S0ONCALL';
const slack = new SlackFakeServer({ token: BOT_TOKEN });
let openai: FakeOpenAi;
let github: FakeGithub;
let target: Server;
let targetUrl: string;
let store: Awaited<ReturnType<typeof freshStore>>;
let env: Record<string, string>;
let tandem: Running;

beforeAll(async () => {
  [openai, github] = await Promise.all([startFakeOpenAi(), startFakeGithub(), slack.start()]).then(([o, g]) => [o, g] as const);
  github.addRepo('acme/api');
  github.addRepo('acme/restart');
  target = createServer((req, res) => {
    if (req.url === '/ok') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('healthy');
    res.writeHead(500).end('broken');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  store = await freshStore();
  env = {
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: openai.url,
    PLANNER_MODEL: 'openai:gpt-4o',
    GITHUB_TOKEN,
    GITHUB_API_URL: github.url,
    TANDEM_APPROVERS: 'U2,U3',
    TANDEM_ESCALATE_TO: ESCALATE,
    TANDEM_HTTP_ALLOW: '127.0.0.1',
    ...store.env,
  };
  tandem = await startTandemProcess(env, store.cwd, slack);
}, 90_000);

afterAll(async () => {
  await tandem?.stop();
  target?.close();
  await Promise.all([slack.stop(), github?.close(), openai?.close().catch(() => undefined)]);
  await store?.cleanup();
});

/** Mentions the bot with a task the model answers with `artifact`; resolves with the plan message. */
async function planned(channel: string, user: string, task: string, artifact: PlanArtifact): Promise<{ thread: string; planMessage: FakeMessage }> {
  openai.enqueue(openAiReply.json(artifact));
  const sent = tandem.driver.mention({ channel, user, text: `<@UBOT> ${task}` });
  expect((await sent).status).toBe(200);
  const planMessage = await waitFor(slack, () => messageWithButtons(slack, channel, sent.ts, 'Approve', 'Modify', 'Reject'), `the plan in ${channel}'s thread`);
  return { thread: sent.ts, planMessage };
}

const texts = (channel: string) => slack.model.messages.filter((m) => m.channel === channel).map((m) => m.text);
const threadText = (channel: string, thread: string) => botMessages(slack, channel, thread).map(visibleText).join('\n');

/** The bot message in the thread, posted after the plan, that has been edited in place: the status board. */
function board(channel: string, thread: string, planTs: string): FakeMessage | undefined {
  return botMessages(slack, channel, thread).find((m) => m.ts > planTs && m.edits > 0);
}

describe('a task from a mention, approved in Slack', () => {
  const channel = 'C10';
  let thread: string;
  let planMessage: FakeMessage;

  it('posts the plan in the mention thread: goal, numbered steps with tool, confidence, Approve/Modify/Reject', async () => {
    github.addIssue('acme/api', { title: 'Release tracking' }); // #1
    ({ thread, planMessage } = await planned(
      channel,
      'U1',
      'open an issue for release 2.0 and check the site',
      plan(
        'File the release 2.0 issue and check the site',
        [
          step('s1', 'Open the release issue', 'github_create_issue', { repo: 'acme/api', title: 'Release 2.0' }),
          step('s2', 'Link it from the tracking issue', 'github_comment', { repo: 'acme/api', number: 1, body: 'Created {{steps.s1.output.url}} as number {{steps.s1.output.number}}' }, ['s1']),
          step('s3', 'Check the site', 'http_check', { url: `${targetUrl}/ok`, expectStatus: 200, contains: 'healthy' }),
          step('s4', 'Report the check', 'slack_notify', { channel: 'C90', text: 'status={{steps.s3.output.status}} ok={{steps.s3.output.ok}} latency={{steps.s3.output.latencyMs}}' }, ['s3']),
        ],
        { confidence: 0.87 },
      ),
    ));
    expect(planMessage.threadTs ?? planMessage.ts).toBe(thread);
    const shown = visibleText(planMessage);
    expect(shown).toContain('File the release 2.0 issue and check the site');
    expect(shown).toMatch(/1[.)][^\n]*Open the release issue/);
    expect(shown).toMatch(/2[.)][^\n]*Link it from the tracking issue/);
    expect(shown).toContain('github_create_issue');
    expect(shown).toContain('http_check');
    expect(shown).toMatch(/0\.87|87\s*%/);
    expect(buttonTexts(planMessage)).toEqual(expect.arrayContaining(['Approve', 'Modify', 'Reject']));
  });

  it('a non-approver who clicks Approve gets an ephemeral message saying why, and nothing runs', async () => {
    const before = github.requests.length;
    const response = await clickByText(tandem.driver, planMessage, 'Approve', 'U1');
    expect(response.status).toBe(200);
    const ephemeral = await waitFor(slack, () => slack.model.ephemeralsFor('U1').find((e) => e.channel === channel), 'an ephemeral to U1');
    expect(visibleText(ephemeral).length).toBeGreaterThan(0);
    expect(github.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
    expect(github.repos.get('acme/api')!.issues).toHaveLength(1);
    expect(texts('C90')).toEqual([]);
  });

  it('an approver runs it; tool outputs carry url/number (GitHub) and status/ok/latencyMs (http_check)', async () => {
    await clickByText(tandem.driver, planMessage, 'Approve', 'U2');
    const comment = await poll(() => github.repos.get('acme/api')!.comments[0], 'the comment on #1', 20_000);
    expect(comment.body).toMatch(/Created https?:\/\/\S+\/issues\/2 as number 2/);
    const report = await waitFor(slack, () => slack.model.messages.find((m) => m.channel === 'C90'), 'the report in C90', 20_000);
    expect(report.text).toMatch(/status=200 ok=true latency=\d+/);
  });

  it('keeps one status board in the thread, edited in place, never more than once a second', async () => {
    const summaryPosted = () => botMessages(slack, channel, thread).some((m) => m.ts > planMessage.ts && /token/i.test(visibleText(m)) && m.edits === 0 && m !== board(channel, thread, planMessage.ts));
    await waitFor(slack, summaryPosted, 'the summary', 20_000);
    const theBoard = board(channel, thread, planMessage.ts)!;
    expect(theBoard).toBeDefined();
    const final = visibleText(theBoard);
    for (const title of ['Open the release issue', 'Link it from the tracking issue', 'Check the site', 'Report the check']) expect(final).toContain(title);
    expect(final).toMatch(/done/i);
    expect(final).toMatch(/issues\/2/); // links to what was made
    // Only one board: no other message in the thread besides it was edited after approval, except the plan.
    expect(botMessages(slack, channel, thread).filter((m) => m.edits > 0 && m.ts !== planMessage.ts)).toHaveLength(1);
    const updates = slack.callsOf('chat.update').filter((c) => c.params.ts === theBoard.ts && c.status === 200).map((c) => c.at);
    expect(updates.length).toBeGreaterThan(1);
    for (let i = 1; i < updates.length; i += 1) expect(updates[i]! - updates[i - 1]!).toBeGreaterThanOrEqual(950);
  });

  it('ends with a summary reply: outcome, links, time and tokens used', async () => {
    const theBoard = board(channel, thread, planMessage.ts)!;
    const summary = botMessages(slack, channel, thread).filter((m) => m.ts > planMessage.ts && m !== theBoard && /token/i.test(visibleText(m))).at(-1)!;
    const shown = visibleText(summary);
    expect(shown).toMatch(/succeeded|success|done|completed/i);
    expect(shown).toMatch(/https?:\/\/\S+\/issues\/2/);
    expect(shown).toMatch(/\d+(\.\d+)?\s*(ms|s|sec|seconds?|m|min|minutes?)\b/);
    expect(shown).toMatch(/\d[\d,]*\s*tokens?|tokens?\D{0,20}\d/i);
  });
});
