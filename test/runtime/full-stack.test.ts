import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_APPROVE_ACTION } from '../../src/bot/views/plan/plan-message.ts';
import { loadConfig } from '../../src/config/config.ts';
import { startTandem, type TandemRuntime } from '../../src/runtime/start-tandem.ts';
import { SlackDriver, SlackFakeServer } from '../../src/workspace/slack-fake/index.ts';
import { openProcessStore, type TestDatabase } from '../helpers/database.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';
import { openAiReply, startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';

const TOKEN = 'xoxb-full-stack-test';
const SECRET = 'full-stack-signing-secret';

/**
 * The whole product as a black box would see it: Slack, a model provider and GitHub are fake servers on
 * loopback; Tandem is the real runtime (store, LLM client, tools, agent, Bolt app) built from config.
 */
describe('Tandem end to end with Slack, OpenAI and GitHub fakes', () => {
  const slack = new SlackFakeServer({ token: TOKEN });
  let openai: FakeOpenAi;
  let github: FakeGithub;
  let database: TestDatabase | undefined;
  let runtime: TandemRuntime;
  let driver: SlackDriver;
  const dir = mkdtempSync(path.join(tmpdir(), 'tandem-full-'));

  beforeAll(async () => {
    [openai, github] = await Promise.all([startFakeOpenAi(), startFakeGithub(), slack.start()]).then(([o, g]) => [o, g] as const);
    github.addRepo('acme/api');
    const store = await openProcessStore(path.join(dir, 'data'));
    database = store.database;
    const config = loadConfig({
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.apiUrl,
      OPENAI_API_KEY: 'sk-full-stack-0000000000000',
      OPENAI_BASE_URL: openai.url,
      PLANNER_MODEL: 'openai:gpt-4o',
      GITHUB_TOKEN: 'ghp_fullstacktokenfullstacktoken1234',
      GITHUB_API_URL: github.url,
      TANDEM_APPROVERS: 'U2',
      TANDEM_RUNBOOKS_DIR: dir,
      ...store.env,
    });
    runtime = await startTandem({ config, logger: pino({ level: 'silent' }), port: 0 });
    driver = new SlackDriver({ eventsUrl: `http://127.0.0.1:${runtime.port}/slack/events`, signingSecret: SECRET, fake: slack });
  }, 60_000);

  afterAll(async () => {
    await runtime?.close(5_000);
    await Promise.all([slack.stop(), openai?.close(), github?.close()]);
    await database?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('plans with the model, waits for an approver, files the issue on GitHub and sums up with its link', async () => {
    // The plan artifact in its documented shape (docs/plan.schema.json).
    openai.enqueue(
      openAiReply.json(
        {
          goal: 'File a tracking issue for the v2.4.0 release of acme/api',
          confidence: 0.9,
          steps: [
            { id: 's1', title: 'Read acme/api', tool: 'github_get_repo', args: { repo: 'acme/api' }, dependsOn: [] },
            {
              id: 's2',
              title: 'File the tracking issue',
              tool: 'github_create_issue',
              args: { repo: 'acme/api', title: 'Release v2.4.0', body: 'Tracking the release of {{steps.s1.output.url}}' },
              dependsOn: ['s1'],
            },
          ],
          rollback: [],
        },
        { inputTokens: 900, outputTokens: 150 },
      ),
    );
    // A rate-limited board edit is retried by the Web API client and counted in /metrics.
    slack.rateLimit('chat.update', 1, 1);
    await driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> open a tracking issue for v2.4.0 of acme/api' });
    const planMessage = () => slack.model.messages.find((m) => JSON.stringify(m.blocks ?? '').includes(PLAN_APPROVE_ACTION));
    await slack.waitUntil(() => planMessage() !== undefined, 20_000, 'the plan in the thread');
    const plan = planMessage()!;
    expect(JSON.stringify(plan.blocks)).toContain('*acme/api*'); // the step's target; its tool is in the full view
    expect(JSON.stringify(plan.blocks)).toContain('View full plan');

    // The requester is not an approver: told why, privately, and nothing runs.
    await driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'U1');
    await slack.waitUntil(() => slack.model.ephemeralsFor('U1').length > 0, 10_000, 'an ephemeral refusal');
    expect(github.repos.get('acme/api')!.issues).toHaveLength(0);

    await driver.clickButtonIn(plan, PLAN_APPROVE_ACTION, 'U2');
    const thread = () => slack.model.thread('C1', plan.threadTs ?? plan.ts);
    await slack.waitUntil(() => thread().some((m) => /^Succeeded: /.test(m.text ?? '')), 20_000, 'the board to end succeeded');
    await slack.waitUntil(
      () => thread().some((m) => /issues\/1/.test(JSON.stringify(m.blocks ?? '')) && /^:white_check_mark: Succeeded: /.test(m.text ?? '')),
      20_000,
      'the summary',
    );

    const [issue] = github.repos.get('acme/api')!.issues;
    expect(issue?.title).toBe('Release v2.4.0');
    expect(issue?.body).toContain('Tracking the release of https://');
    expect(issue?.body).toMatch(/<!-- tandem:run_[a-z0-9]+\/s2 -->/);

    const [run] = await runtime.store.listRuns({ limit: 1 });
    expect(run?.status).toBe('succeeded');
    expect(await runtime.store.usageTotals(run!.id)).toMatchObject({ inputTokens: 900, outputTokens: 150 });
    expect((await runtime.store.listApprovals(run!.id)).map((a) => [a.userId, a.decision])).toEqual([['U2', 'approved']]);
    const metrics = await runtime.metrics.registry.metrics();
    expect(metrics).toMatch(/tandem_runs_total\{outcome="succeeded"\} 1/);
    expect(metrics).toMatch(/tandem_steps_total\{tool="github_create_issue",status="succeeded"\} 1/);
    expect(metrics).toMatch(/tandem_api_errors_total\{api="slack",kind="rate_limited"\} 1/);
    expect(metrics).not.toContain('ghp_fullstack');
  });
});
