import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/agent/model/errors.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createLlmClient } from '../../src/integrations/llm/index.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { anthropicReply } from '../fakes/anthropic-server.ts';
import { openAiReply } from '../fakes/openai-server.ts';
import { clientFor, failureOf, triage, triageRequest } from './helpers.ts';
import { useFakeModels } from '../helpers/model-servers.ts';

const models = useFakeModels();

const OPENAI_KEY = 'sk-test-openai-0000000000';
const GITHUB_TOKEN = 'corp-ghe-token-5f2a9c';
const PASTED_TOKEN = `ghp_${'a1B2c3D4e5'.repeat(4)}`;

function env(extra: Record<string, string> = {}) {
  return {
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: models.openai.url,
    ANTHROPIC_API_KEY: 'sk-ant-test-000000000000',
    ANTHROPIC_BASE_URL: models.anthropic.url,
    GITHUB_TOKEN,
    ...extra,
  };
}

describe('LlmClient', () => {
  it('routes each role to its configured model; the evaluator defaults to the planner’s', async () => {
    const { client } = clientFor(env({ PLANNER_MODEL: 'openai:gpt-4o', EXECUTOR_MODEL: 'anthropic:claude-haiku-4-5' }));
    models.openai.enqueue(openAiReply.json(triage), openAiReply.json(triage));
    models.anthropic.enqueue(anthropicReply.json(triage));

    const planner = await client.generate(triageRequest({ role: 'planner' }));
    const executor = await client.generate(triageRequest({ role: 'executor' }));
    const evaluator = await client.generate(triageRequest({ role: 'evaluator' }));

    expect([planner.model, executor.model, evaluator.model]).toEqual(['gpt-4o', 'claude-haiku-4-5', 'gpt-4o']);
    expect(models.openai.requests).toHaveLength(2);
    expect(models.anthropic.requests).toHaveLength(1);
  });

  it('says which roles have a model, and refuses a call for a role without one, naming what to set', async () => {
    const { client } = clientFor({});

    expect(client.has('planner')).toBe(false);
    const error = await failureOf(client.generate(triageRequest()));

    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).kind).toBe('not-configured');
    expect((error as LlmError).message).toMatch(/PLANNER_MODEL/);
    expect(clientFor(env({ PLANNER_MODEL: 'openai:gpt-4o' })).client.has('evaluator')).toBe(true);
  });

  it('records usage and cost once per call, per role and run, failed answers included', async () => {
    const { client, usage } = clientFor(env({ PLANNER_MODEL: 'openai:gpt-4o', EVALUATOR_MODEL: 'anthropic:claude-haiku-4-5' }));
    models.openai.enqueue(
      openAiReply.json(triage, { inputTokens: 1000, outputTokens: 200 }),
      openAiReply.text('not json', { inputTokens: 10, outputTokens: 5 }),
    );
    models.anthropic.enqueue(anthropicReply.json(triage, { inputTokens: 2000, outputTokens: 300 }));

    const planned = await client.generate(triageRequest({ runId: 'run-7' }));
    await client.generate(triageRequest({ role: 'evaluator', runId: 'run-7' }));
    await failureOf(client.generate(triageRequest({ runId: undefined })));

    expect(planned.costUsd).toBeCloseTo(0.0045, 10); // 1000 × $2.50/M + 200 × $10/M
    expect(usage).toEqual([
      { runId: 'run-7', role: 'planner', provider: 'openai', model: 'gpt-4o', inputTokens: 1000, outputTokens: 200, costUsd: expect.closeTo(0.0045, 10) },
      {
        runId: 'run-7',
        role: 'evaluator',
        provider: 'anthropic',
        model: 'claude-haiku-4-5',
        inputTokens: 2000,
        outputTokens: 300,
        costUsd: expect.closeTo(0.0035, 10),
      },
      { runId: null, role: 'planner', provider: 'openai', model: 'gpt-4o', inputTokens: 10, outputTokens: 5, costUsd: expect.closeTo(0.000075, 10) },
    ]);
  });

  it('prices a model from TANDEM_MODEL_PRICES, and an unknown local model at 0', async () => {
    const prices = JSON.stringify({ 'openai:gpt-4o': { input: 1, output: 1 } });
    const priced = clientFor(env({ PLANNER_MODEL: 'openai:gpt-4o', EXECUTOR_MODEL: 'openai:qwen2.5:7b', TANDEM_MODEL_PRICES: prices }));
    models.openai.enqueue(
      openAiReply.json(triage, { inputTokens: 500_000, outputTokens: 500_000 }),
      openAiReply.json(triage, { inputTokens: 9000, outputTokens: 900 }),
    );

    expect((await priced.client.generate(triageRequest())).costUsd).toBeCloseTo(1, 10);
    expect((await priced.client.generate(triageRequest({ role: 'executor' }))).costUsd).toBe(0);
  });

  it('strips configured secrets and token-shaped strings from everything sent to the model', async () => {
    const { client, logLines } = clientFor(env({ PLANNER_MODEL: 'openai:gpt-4o', EXECUTOR_MODEL: 'anthropic:claude-haiku-4-5' }));
    models.openai.enqueue(openAiReply.json(triage));
    models.anthropic.enqueue(anthropicReply.json(triage));
    const leaky = triageRequest({
      system: `You plan tasks. Our GitHub token is ${GITHUB_TOKEN}.`,
      messages: [
        { role: 'user', content: `Use ${PASTED_TOKEN} to open an issue` },
        { role: 'assistant', content: `Noted, key ${OPENAI_KEY}.` },
      ],
    });

    await client.generate(leaky);
    await client.generate({ ...leaky, role: 'executor' });

    for (const request of [...models.openai.requests, ...models.anthropic.requests]) {
      const sent = JSON.stringify(request.body);
      for (const secret of [GITHUB_TOKEN, PASTED_TOKEN, OPENAI_KEY]) expect(sent).not.toContain(secret);
      expect(sent).toContain('Use [redacted] to open an issue');
    }
    expect((models.anthropic.requests[0]!.body as { system: string }).system).toBe('You plan tasks. Our GitHub token is [redacted].');
    expect(logLines.join('')).not.toContain(GITHUB_TOKEN);
  });

  it('still answers when recording usage fails, and logs why', async () => {
    const lines: string[] = [];
    const config = loadConfig(env({ PLANNER_MODEL: 'openai:gpt-4o' }));
    const client = createLlmClient({
      config,
      logger: createLogger({ level: 'warn', secrets: config.secrets, destination: { write: (line: string) => void lines.push(line) } }),
      onUsage: () => Promise.reject(new Error('database is down')),
    });
    models.openai.enqueue(openAiReply.json(triage));

    expect((await client.generate(triageRequest())).value).toEqual(triage);
    expect(lines.join('')).toMatch(/could not record model usage/);
  });

  it('hands back the caller’s own reason when the caller cancels', async () => {
    const { client } = clientFor(env({ PLANNER_MODEL: 'anthropic:claude-haiku-4-5' }));
    models.anthropic.enqueue(anthropicReply.stall(5_000));
    const controller = new AbortController();
    const cancelled = new Error('run cancelled by U123');

    const pending = failureOf(client.generate(triageRequest({ signal: controller.signal })));
    await waitFor(() => models.anthropic.requests.length === 1);
    controller.abort(cancelled);

    expect(await pending).toBe(cancelled);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
