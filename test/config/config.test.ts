import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { readEnvironment } from '../../src/config/environment.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { configProblem } from '../helpers/config-problem.ts';

describe('loadConfig', () => {
  it('applies the contract defaults with nothing set', () => {
    const config = loadConfig({});
    expect(config.slack.mode).toBe('none');
    expect(config.slack.apiUrl).toBe('https://slack.com/api/');
    expect(config.port).toBe(3000);
    expect(config.github.apiUrl).toBe('https://api.github.com');
    expect(config.database).toEqual({ url: undefined, dataDir: './.data' });
    expect(config.confidenceThreshold).toBe(0.6);
    expect(config.budgets).toEqual({ maxSteps: 20, maxReplans: 2, runTimeoutS: 3600, stepTimeoutS: 600, maxTokens: 200000 });
    expect(Object.isFrozen(config) && Object.isFrozen(config.budgets)).toBe(true);
  });

  it('names the variable and the expected form for a bad setting', () => {
    expect(configProblem({ SLACK_BOT_TOKEN: 'xoxp-123' })).toBe('SLACK_BOT_TOKEN: expected a bot token starting with xoxb-');
    expect(configProblem({ TANDEM_CONFIDENCE_THRESHOLD: '1.5' })).toMatch(/^TANDEM_CONFIDENCE_THRESHOLD: /);
    expect(configProblem({ PLANNER_MODEL: 'gpt-4o' })).toBe('PLANNER_MODEL: expected provider:model, e.g. openai:gpt-4o or anthropic:claude-sonnet-4-5');
    expect(configProblem({ TANDEM_APPROVERS: 'U1,alice' })).toMatch(/^TANDEM_APPROVERS: expected Slack user/);
    expect(configProblem({ DATABASE_URL: 'mysql://x' })).toMatch(/^DATABASE_URL: expected a postgres:/);
    expect(configProblem({ PORT: 'eighty' })).toMatch(/^PORT: /);
    expect(configProblem({ TANDEM_ALLOW_BOTS: 'B123,U1' })).toBe('TANDEM_ALLOW_BOTS: expected Slack bot (B…) or app (A…) IDs, comma-separated');
  });

  it('a model named without its provider for the executor, evaluator or fallback takes the planner’s provider', () => {
    const keys = { OPENAI_API_KEY: 'sk-test-0000000000000000', ANTHROPIC_API_KEY: 'sk-ant-test-00000000000' };
    const { models } = loadConfig({
      ...keys,
      PLANNER_MODEL: 'anthropic:claude-sonnet-4-5',
      EXECUTOR_MODEL: 'claude-haiku-4-5',
      EVALUATOR_MODEL: 'openai:gpt-4o-mini',
    });
    expect(models.executor).toEqual({ provider: 'anthropic', model: 'claude-haiku-4-5' });
    expect(models.evaluator).toEqual({ provider: 'openai', model: 'gpt-4o-mini' });
    // A local server's model names carry colons of their own.
    expect(loadConfig({ ...keys, PLANNER_MODEL: 'openai:llama3', PLANNER_FALLBACK_MODEL: 'llama3:70b' }).models['planner-fallback']).toEqual({
      provider: 'openai',
      model: 'llama3:70b',
    });
    expect(configProblem({ ...keys, EXECUTOR_MODEL: 'gpt-4o-mini' })).toBe(
      "EXECUTOR_MODEL: expected provider:model (e.g. openai:gpt-4o-mini); a model alone takes PLANNER_MODEL's provider, and PLANNER_MODEL is not set",
    );
  });

  it('reads TANDEM_ALLOW_BOTS as bot and app ids; absent, no other app counts', () => {
    expect(loadConfig({ TANDEM_ALLOW_BOTS: 'B0123ABC, A0456DEF' }).slack.allowBots).toEqual(['B0123ABC', 'A0456DEF']);
    expect(loadConfig({}).slack.allowBots).toEqual([]);
  });

  it('requires a key for the provider a role names, and a signing secret in HTTP mode', () => {
    expect(configProblem({ PLANNER_MODEL: 'anthropic:claude-sonnet-4-5' })).toBe('ANTHROPIC_API_KEY: required because PLANNER_MODEL uses anthropic');
    expect(configProblem({ OPENAI_API_KEY: 'sk-x', PLANNER_MODEL: 'openai:gpt-4o', EVALUATOR_MODEL: 'anthropic:claude-haiku-4-5' })).toMatch(
      /^ANTHROPIC_API_KEY: .*EVALUATOR_MODEL/,
    );
    expect(configProblem({ OPENAI_API_KEY: 'sk-x', PLANNER_MODEL: 'openai:gpt-4o', PLANNER_FALLBACK_MODEL: 'anthropic:claude-opus-4-1' })).toMatch(
      /^ANTHROPIC_API_KEY: .*PLANNER_FALLBACK_MODEL/,
    );
    expect(configProblem({ SLACK_BOT_TOKEN: 'xoxb-1' })).toMatch(/^SLACK_SIGNING_SECRET: required in HTTP mode/);
    // `tandem start --local` (and --demo) talk to the browser workspace with a secret of their own.
    expect(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1' }, { local: true }).slack.botToken).toBe('xoxb-1');
    expect(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' }).slack.mode).toBe('socket');
  });

  it('defaults the executor and evaluator to the planner model', () => {
    const config = loadConfig({ OPENAI_API_KEY: 'sk-test', PLANNER_MODEL: 'openai:gpt-4o' });
    expect(config.models.executor).toEqual({ provider: 'openai', model: 'gpt-4o' });
    expect(config.models.evaluator).toEqual({ provider: 'openai', model: 'gpt-4o' });
    expect(config.models['planner-fallback']).toBeUndefined();
  });

  it('reads a .env file, with real environment variables winning', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tandem-env-'));
    writeFileSync(path.join(dir, '.env'), 'PORT=4100\nTANDEM_MAX_STEPS=7\n');
    const config = loadConfig(readEnvironment({ TANDEM_MAX_STEPS: '9' }, dir));
    expect(config.port).toBe(4100);
    expect(config.budgets.maxSteps).toBe(9);
  });
});

describe('the logger', () => {
  it('never writes a configured secret or a token-shaped string', async () => {
    const config = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1111-2222-secretpart', SLACK_SIGNING_SECRET: 'signing-secret-value', GITHUB_TOKEN: 'mygithubtoken123' });
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: 'info', secrets: config.secrets, destination });
    logger.info(
      { request: { headers: { authorization: `Bearer ${config.slack.botToken}` } }, note: 'token mygithubtoken123 and ghp_abcdefghijklmnopqrstuvwxyz012345' },
      'calling with signing-secret-value',
    );
    logger.error(new Error(`failed with xoxb-1111-2222-secretpart`));
    await new Promise((resolve) => setImmediate(resolve));
    const output = lines.join('');
    expect(output).toContain('calling with');
    for (const secret of ['xoxb-1111-2222-secretpart', 'signing-secret-value', 'mygithubtoken123', 'ghp_abcdefghijklmnopqrstuvwxyz012345']) {
      expect(output).not.toContain(secret);
    }
  });
});
