/**
 * Several `tandem start` processes on one DATABASE_URL share the work — every
 * step runs once, and when a process dies another continues its runs. PostgreSQL only (TEST_DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackFakeServer } from '../../src/workspace/slack-fake/index.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';
import { openAiReply, startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import {
  BOT_TOKEN,
  GITHUB_TOKEN,
  OPENAI_KEY,
  SIGNING_SECRET,
  botMessages,
  clickByText,
  freshStore,
  messageWithButtons,
  poll,
  startTandemProcess,
  waitFor,
  type Running,
  isSummary,
} from './harness.ts';
import { plan, step } from './plans.ts';

if (!process.env.TEST_DATABASE_URL) console.log('test/blackbox/replicas.test.ts skipped: set TEST_DATABASE_URL to a PostgreSQL server to run it');

describe.skipIf(!process.env.TEST_DATABASE_URL)('two processes on one DATABASE_URL', () => {
  const slack = new SlackFakeServer({ token: BOT_TOKEN });
  let openai: FakeOpenAi;
  let github: FakeGithub;
  let store: Awaited<ReturnType<typeof freshStore>>;
  let env: Record<string, string>;
  let a: Running;
  let b: Running;

  beforeAll(async () => {
    [openai, github] = await Promise.all([startFakeOpenAi(), startFakeGithub(), slack.start()]).then(([o, g]) => [o, g] as const);
    github.addRepo('acme/shared');
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
      ...store.env,
    };
    [a, b] = await Promise.all([startTandemProcess(env, store.cwd, slack), startTandemProcess(env, store.cwd, slack)]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await Promise.all([slack.stop(), github?.close(), openai?.close().catch(() => undefined)]);
    await store?.cleanup();
  });

  it('runs whose events and clicks land on either process run every step once', async () => {
    const runs = [0, 1, 2, 3].map((i) => ({ channel: `CR${i}`, out: `CO${i}`, via: i % 2 ? b : a, clickVia: i % 2 ? a : b }));
    for (const run of runs) {
      openai.enqueue(
        openAiReply.json(
          plan(
            `Three notes ${run.out}`,
            [1, 2, 3].map((n) => step(`s${n}`, `Note ${n}`, 'slack_notify', { channel: run.out, text: `note ${n}` })),
          ),
        ),
      );
      const sent = run.via.driver.mention({ channel: run.channel, user: 'U1', text: `<@UBOT> three notes to ${run.out}` });
      await sent;
      const planMessage = await waitFor(slack, () => messageWithButtons(slack, run.channel, sent.ts, 'Approve'), 'the plan', 20_000);
      await clickByText(run.clickVia.driver, planMessage, 'Approve', 'U2');
      Object.assign(run, { thread: sent.ts });
    }
    for (const run of runs) {
      await waitFor(
        slack,
        () => botMessages(slack, run.channel, (run as unknown as { thread: string }).thread).some((m) => isSummary(m)),
        `the summary in ${run.channel}`,
        30_000,
      );
    }
    for (const run of runs)
      expect(
        slack.model.messages
          .filter((m) => m.channel === run.out)
          .map((m) => m.text)
          .sort(),
      ).toEqual(['note 1', 'note 2', 'note 3']);
  }, 90_000);

  it('when a process dies mid-run, the other continues it without repeating the write', async () => {
    openai.enqueue(
      openAiReply.json(
        plan('File, wait, comment', [
          step('s1', 'File the issue', 'github_create_issue', { repo: 'acme/shared', title: 'Survive a crash' }),
          step('s2', 'Wait a while', 'wait', { seconds: 2 }, ['s1']),
          step('s3', 'Comment on it', 'github_comment', { repo: 'acme/shared', number: 1, body: 'after the crash' }, ['s2']),
        ]),
      ),
    );
    const sent = a.driver.mention({ channel: 'CR9', user: 'U1', text: '<@UBOT> file, wait, comment' });
    await sent;
    const planMessage = await waitFor(slack, () => messageWithButtons(slack, 'CR9', sent.ts, 'Approve'), 'the plan', 20_000);
    await clickByText(a.driver, planMessage, 'Approve', 'U2');
    const repo = github.repos.get('acme/shared')!;
    await poll(() => repo.issues.length === 1, 'the issue', 15_000);
    // Which process drives the run is not ours to know: kill both's chance by killing A hard, then B must finish it
    // (or, if B was driving, it simply goes on).
    a.tandem.child.kill('SIGKILL');
    await a.tandem.exited;
    await poll(() => repo.comments.length === 1, 'the comment from the surviving process', 90_000);
    expect(repo.issues).toHaveLength(1);
    expect(github.requests.filter((r) => r.method === 'POST' && r.path === '/repos/acme/shared/issues')).toHaveLength(1);
  }, 120_000);
});
