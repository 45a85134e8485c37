/**
 * Commands and configuration as an operator meets them: bad settings, a bot with no model, and `tandem plan`.
 * Expectations come from the product's documented behaviour only.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackFakeServer } from '../../src/workspace/slack-fake/index.ts';
import { runTandem } from '../cli/tandem-process.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';
import { anthropicReply, startFakeAnthropic } from '../fakes/anthropic-server.ts';
import { openAiReply, startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import {
  BOT_TOKEN,
  GITHUB_TOKEN,
  OPENAI_KEY,
  SIGNING_SECRET,
  botMessages,
  clickByText,
  freshStore,
  poll,
  startTandemProcess,
  visibleText,
  waitFor,
} from './harness.ts';
import { plan, step } from './plans.ts';

const slack = new SlackFakeServer({ token: BOT_TOKEN });
let openai: FakeOpenAi;
let github: FakeGithub;
let store: Awaited<ReturnType<typeof freshStore>>;
let base: Record<string, string>;

beforeAll(async () => {
  [openai, github] = await Promise.all([startFakeOpenAi(), startFakeGithub(), slack.start()]).then(([o, g]) => [o, g] as const);
  github.addRepo('acme/api');
  store = await freshStore();
  base = {
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    GITHUB_TOKEN,
    GITHUB_API_URL: github.url,
    PORT: '0',
    ...store.env,
  };
}, 60_000);

afterAll(async () => {
  await Promise.all([slack.stop(), github?.close(), openai?.close().catch(() => undefined)]);
  await store?.cleanup();
});

/** Runs `tandem start` with a bad environment; it must stop with one line naming the variable. */
async function refusedStart(env: Record<string, string>, variable: string): Promise<void> {
  const cli = runTandem(['start'], env, store.cwd);
  const code = await cli.exited;
  expect(code, cli.stdout() + cli.stderr()).not.toBe(0);
  const lines = `${cli.stdout()}\n${cli.stderr()}`.split('\n').filter((l) => l.trim());
  const naming = lines.filter((l) => l.includes(variable));
  expect(naming, lines.join('\n')).toHaveLength(1);
  expect(lines, 'one clear line, not a stack trace').toHaveLength(1);
}

describe.concurrent('a missing or malformed setting stops start-up with one clear line naming the variable', () => {
  it('PORT that is not a number', () => refusedStart({ ...base, PORT: 'not-a-port' }, 'PORT'));
  it('TANDEM_CONFIDENCE_THRESHOLD out of 0..1', () => refusedStart({ ...base, TANDEM_CONFIDENCE_THRESHOLD: '7' }, 'TANDEM_CONFIDENCE_THRESHOLD'));
  it('PLANNER_MODEL not provider:model', () => refusedStart({ ...base, OPENAI_API_KEY: OPENAI_KEY, PLANNER_MODEL: 'gpt-4o' }, 'PLANNER_MODEL'));
  it('a .env file in the working directory is read', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tandem-dotenv-'));
    try {
      writeFileSync(path.join(dir, '.env'), 'TANDEM_MAX_STEPS=many\n');
      const cli = runTandem(['start'], base, dir);
      expect(await cli.exited).not.toBe(0);
      expect(`${cli.stdout()}\n${cli.stderr()}`).toContain('TANDEM_MAX_STEPS');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('TANDEM_MCP_CONFIG naming a file that is not there', () =>
    refusedStart({ ...base, TANDEM_MCP_CONFIG: path.join(store.cwd, 'no-such-mcp.json') }, 'TANDEM_MCP_CONFIG'));
  it('TANDEM_MCP_CONFIG naming a file that is not a valid MCP config', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tandem-mcp-'));
    try {
      writeFileSync(path.join(dir, 'broken.json'), '{ "servers": ');
      writeFileSync(path.join(dir, 'wrong.json'), JSON.stringify({ servers: { docs: { url: 'ftp://nope' } } }));
      await refusedStart({ ...base, TANDEM_MCP_CONFIG: path.join(dir, 'broken.json') }, 'TANDEM_MCP_CONFIG');
      await refusedStart({ ...base, TANDEM_MCP_CONFIG: path.join(dir, 'wrong.json') }, 'TANDEM_MCP_CONFIG');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('SLACK_SIGNING_SECRET missing in HTTP mode', () => {
    const { SLACK_SIGNING_SECRET: _omit, ...env } = base;
    return refusedStart(env, 'SLACK_SIGNING_SECRET');
  });
});

describe('with no model configured', () => {
  it('starts on an embedded store under ./.data, and a task gets a reply in its thread saying how to configure a model', async () => {
    const { DATA_DIR: _d, DATABASE_URL: _u, ...env } = base;
    const tandem = await startTandemProcess(env, store.cwd, slack);
    expect(existsSync(path.join(store.cwd, '.data'))).toBe(true);
    try {
      const sent = tandem.driver.mention({ channel: 'C30', user: 'U1', text: '<@UBOT> summarise the open pulls of acme/api' });
      expect((await sent).status).toBe(200);
      const reply = await waitFor(
        slack,
        () => botMessages(slack, 'C30', sent.ts).find((m) => /PLANNER_MODEL/.test(visibleText(m))),
        'the how-to reply',
        20_000,
      );
      const shown = visibleText(reply);
      // The how-to is for whoever runs Tandem: it names the variables to set.
      expect(shown).toContain('set PLANNER_MODEL (for example openai:gpt-4o) and OPENAI_API_KEY (or ANTHROPIC_API_KEY)');
      expect(reply.threadTs).toBe(sent.ts);
    } finally {
      expect(await tandem.stop()).toBe(0);
    }
  }, 60_000);
});

describe('tandem plan "<task>"', () => {
  it('prints the plan the planner would make and runs nothing', async () => {
    openai.enqueue(
      openAiReply.json(
        plan('File the release 2.1 issue', [
          step('s1', 'Open the release issue', 'github_create_issue', { repo: 'acme/api', title: 'Release 2.1' }),
          step('s2', 'Tell the team', 'slack_notify', { channel: 'C31', text: 'filed' }, ['s1']),
        ]),
      ),
    );
    const slackCallsBefore = slack.calls.length;
    const env = { ...base, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: openai.url, PLANNER_MODEL: 'openai:gpt-4o' };
    const runIds = async () => {
      const runs = runTandem(['runs'], env, store.cwd);
      expect(await runs.exited, runs.stderr()).toBe(0);
      return { ids: [...new Set(runs.stdout().match(/\brun[_-][A-Za-z0-9]+/g) ?? [])], out: runs.stdout() };
    };
    const before = await runIds();
    const cli = runTandem(['plan', 'open an issue for release 2.1 of acme/api and tell the team'], env, store.cwd);
    expect(await cli.exited, cli.stderr()).toBe(0);
    const out = cli.stdout();
    expect(out).toContain('File the release 2.1 issue');
    expect(out).toContain('Open the release issue');
    expect(out).toContain('github_create_issue');
    expect(out).toContain('Tell the team');
    expect(openai.requests).toHaveLength(1);
    expect(github.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(github.repos.get('acme/api')!.issues).toEqual([]);
    expect(slack.calls.slice(slackCallsBefore).filter((c) => c.method.startsWith('chat.'))).toEqual([]);
    // Nothing recorded as a run either.
    const after = await runIds();
    expect(after.ids).toEqual(before.ids);
    expect(after.out).not.toContain('release 2.1');
  }, 60_000);

  it('plans with Anthropic when PLANNER_MODEL names it', async () => {
    const anthropic = await startFakeAnthropic();
    try {
      anthropic.enqueue(anthropicReply.json(plan('Read acme/api', [step('s1', 'Read the repo', 'github_get_repo', { repo: 'acme/api' })])));
      const env = { ...base, ANTHROPIC_API_KEY: 'sk-ant-blackbox-secret', ANTHROPIC_BASE_URL: anthropic.url, PLANNER_MODEL: 'anthropic:claude-sonnet-4-5' };
      const cli = runTandem(['plan', 'read acme/api'], env, store.cwd);
      expect(await cli.exited, cli.stderr()).toBe(0);
      expect(cli.stdout()).toContain('Read the repo');
      expect(anthropic.requests).toHaveLength(1);
    } finally {
      await anthropic.close();
    }
  }, 60_000);
});

describe('tandem migrate', () => {
  it('prepares the store and exits 0', async () => {
    const cli = runTandem(['migrate'], base, store.cwd);
    expect(await cli.exited, cli.stderr()).toBe(0);
  }, 30_000);
});

describe('budgets and thresholds from the environment', () => {
  let tandem: Awaited<ReturnType<typeof startTandemProcess>>;
  const env = () => ({
    ...base,
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: openai.url,
    PLANNER_MODEL: 'openai:gpt-4o',
    TANDEM_STEP_TIMEOUT_S: '1',
    TANDEM_CONFIDENCE_THRESHOLD: '0.95',
    TANDEM_ESCALATE_TO: 'U9',
  });

  beforeAll(async () => {
    tandem = await startTandemProcess(env(), store.cwd, slack);
  }, 60_000);
  afterAll(async () => {
    await tandem?.stop();
  });

  it('TANDEM_CONFIDENCE_THRESHOLD: a plan below it (0.9 < 0.95) escalates to TANDEM_ESCALATE_TO instead of acting', async () => {
    openai.enqueue(openAiReply.json(plan('Say hello', [step('s1', 'Say it', 'slack_notify', { channel: 'C51', text: 'hello' })], { confidence: 0.9 })));
    const sent = tandem.driver.mention({ channel: 'C50', user: 'U1', text: '<@UBOT> say hello' });
    await sent;
    await waitFor(slack, () => botMessages(slack, 'C50', sent.ts).find((m) => visibleText(m).includes('<@U9>')), 'the escalation', 20_000);
    expect(slack.model.messages.filter((m) => m.channel === 'C51')).toEqual([]);
  });

  it('with TANDEM_APPROVERS empty anyone may approve, but not their own destructive step', async () => {
    const pull = github.addPull('acme/api', { title: 'Self merge', head: 'self' });
    openai.enqueue(
      openAiReply.json(plan('Merge my pull', [step('s1', 'Merge it', 'github_merge_pull', { repo: 'acme/api', number: pull.number })], { confidence: 0.99 })),
    );
    const sent = tandem.driver.mention({ channel: 'C54', user: 'U1', text: `<@UBOT> merge pull ${pull.number}` });
    await sent;
    const planMessage = await waitFor(
      slack,
      () => botMessages(slack, 'C54', sent.ts).find((m) => /Approve/.test(JSON.stringify(m.blocks ?? '')) && visibleText(m).includes('Merge it')),
      'the plan',
      20_000,
    );
    await clickByText(tandem.driver, planMessage, 'Approve', 'U1');
    await waitFor(slack, () => slack.model.ephemeralsFor('U1').find((e) => e.channel === 'C54'), 'an ephemeral to the requester');
    expect(github.repos.get('acme/api')!.pulls.get(pull.number)!.merged).toBe(false);
    await clickByText(tandem.driver, planMessage, 'Approve', 'U7'); // anyone else in the channel
    await poll(() => github.repos.get('acme/api')!.pulls.get(pull.number)!.merged, 'the merge', 20_000);
  });

  it('TANDEM_STEP_TIMEOUT_S: a step that runs longer fails and is escalated', async () => {
    openai.enqueue(
      openAiReply.json(
        plan(
          'Wait long',
          [step('s1', 'Wait five seconds', 'wait', { seconds: 5 }), step('s2', 'Then say', 'slack_notify', { channel: 'C53', text: 'waited' }, ['s1'])],
          { confidence: 0.99 },
        ),
      ),
    );
    const sent = tandem.driver.mention({ channel: 'C52', user: 'U1', text: '<@UBOT> wait long' });
    await sent;
    const planMessage = await waitFor(
      slack,
      () => botMessages(slack, 'C52', sent.ts).find((m) => visibleText(m).includes('Wait five seconds') && /Approve/.test(JSON.stringify(m.blocks ?? ''))),
      'the plan',
      20_000,
    );
    await clickByText(tandem.driver, planMessage, 'Approve', 'U2');
    const escalation = await waitFor(
      slack,
      // The read is replanned first (the budget allows it); with no planner answer left, replanning fails and a
      // person is asked: Try again or Abort.
      () => botMessages(slack, 'C52', sent.ts).find((m) => visibleText(m).includes('<@U9>') && /Retry|Try again/.test(JSON.stringify(m.blocks ?? ''))),
      'the timeout escalation',
      20_000,
    );
    expect(visibleText(escalation)).toMatch(/time|1 ?s/i);
    expect(slack.model.messages.filter((m) => m.channel === 'C53')).toEqual([]);
  });
});
