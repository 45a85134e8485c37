/**
 * A plan nobody approved within TANDEM_APPROVAL_TTL_S expires (contract §5): nobody rejected it, and every place
 * that tells runs apart says so alike. The thread's summary, `GET /metrics` (runs by outcome, §6), `tandem runs`
 * and `tandem show`, before and after `tandem prune` (§1). Before, the run was stored as `rejected`: /metrics
 * counted it as rejected, and once pruned (its summary gone) the CLI read "rejected" again. Slack and the model
 * are fake servers on loopback; Tandem is the real runtime, then the real CLI.
 */
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
import { openAiReply, startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import { runTandem } from '../cli/tandem-process.ts';

const TOKEN = 'xoxb-expired-run-test';
const SECRET = 'expired-run-signing-secret';
const DAY_MS = 86_400_000;

describe('a plan nobody approved in time', () => {
  const slack = new SlackFakeServer({ token: TOKEN });
  let openai: FakeOpenAi;
  let database: TestDatabase | undefined;
  let storeEnv: Record<string, string>;
  let runtime: TandemRuntime | undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'tandem-expired-'));

  beforeAll(async () => {
    [openai] = await Promise.all([startFakeOpenAi(), slack.start()]);
    const store = await openProcessStore(path.join(dir, 'data'));
    database = store.database;
    storeEnv = store.env;
    const config = loadConfig({
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.apiUrl,
      OPENAI_API_KEY: 'sk-expired-run-0000000000000',
      OPENAI_BASE_URL: openai.url,
      PLANNER_MODEL: 'openai:gpt-4o',
      TANDEM_APPROVERS: 'U2',
      TANDEM_RUNBOOKS_DIR: dir,
      ...store.env,
    });
    runtime = await startTandem({ config, logger: pino({ level: 'silent' }), port: 0 });
  }, 60_000);

  afterAll(async () => {
    await runtime?.close(5_000);
    await Promise.all([slack.stop(), openai?.close()]);
    await database?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `tandem <args>` as an operator runs it, on the same store; what it printed. */
  async function cli(...args: string[]): Promise<string> {
    const tandem = runTandem(args, storeEnv, dir);
    expect(await tandem.exited, tandem.stderr()).toBe(0);
    return tandem.stdout();
  }

  it('is expired in the thread, in /metrics and in the CLI, also after tandem prune; never rejected', async () => {
    openai.enqueue(
      openAiReply.json({
        goal: 'Say hello in C9',
        confidence: 0.9,
        steps: [{ id: 's1', title: 'Say hello', tool: 'slack_notify', args: { channel: 'C9', text: 'hello' }, dependsOn: [] }],
        rollback: [],
      }),
    );
    const driver = new SlackDriver({ eventsUrl: `http://127.0.0.1:${runtime!.port}/slack/events`, signingSecret: SECRET, fake: slack });
    await driver.mention({ channel: 'C1', user: 'U1', text: '<@UBOT> say hello in C9' });
    await slack.waitUntil(() => slack.model.messages.some((m) => JSON.stringify(m.blocks ?? '').includes(PLAN_APPROVE_ACTION)), 20_000, 'the plan');

    // A day and a minute later, housekeeping expires the plan.
    await runtime!.agent.housekeep(new Date(Date.now() + DAY_MS + 60_000));
    await runtime!.agent.idle();
    await slack.waitUntil(() => slack.model.messages.some((m) => /^:hourglass: Expired: /.test(m.text ?? '')), 10_000, 'the summary');
    const [run] = await runtime!.store.listRuns({ limit: 1 });

    const metrics = await (await fetch(`http://127.0.0.1:${runtime!.port}/metrics`)).text();
    expect(metrics).toMatch(/tandem_runs_total\{outcome="expired"\} 1/);
    expect(metrics).toMatch(/tandem_runs_total\{outcome="rejected"\} 0\n/);
    await runtime!.close(5_000);
    runtime = undefined;

    const listed = (out: string) => out.split('\n').find((line) => line.startsWith(run!.id)) ?? '';
    expect(listed(await cli('runs'))).toMatch(new RegExp(`^${run!.id}  expired `));
    expect((await cli('show', run!.id)).split('\n')[0]).toBe(`run ${run!.id}  expired`);

    expect(await cli('prune', '--older-than', '0')).toMatch(/1 run/);
    expect(listed(await cli('runs'))).toMatch(new RegExp(`^${run!.id}  expired `));
    expect((await cli('show', run!.id)).split('\n')[0]).toBe(`run ${run!.id}  expired`);
    expect(slack.model.messages.filter((m) => m.channel === 'C9')).toEqual([]);
  });
});
