import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LlmError } from '../../src/agent/model/errors.ts';
import { anthropicReply, startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic-server.ts';
import { clientFor, failureOf, triage, triageRequest } from './helpers.ts';

let fake: FakeAnthropic;
beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await fake.close();
});

const env = () => ({ ANTHROPIC_API_KEY: 'sk-ant-test-000000000000', ANTHROPIC_BASE_URL: fake.url, PLANNER_MODEL: 'anthropic:claude-haiku-4-5' });

async function llmErrorOf(promise: Promise<unknown>): Promise<LlmError> {
  const error = await failureOf(promise);
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

interface MessagesBody {
  model: string;
  max_tokens: number;
  system: string;
  messages: { role: string; content: string }[];
  tools: { name: string; input_schema: { type: string; required: string[] } }[];
  tool_choice: { type: string; name: string };
}

describe('Anthropic adapter against a Messages server', () => {
  it('forces a tool whose input schema is the answer schema, and returns the parsed tool input with usage', async () => {
    const { client } = clientFor(env());
    fake.enqueue(anthropicReply.json(triage, { inputTokens: 2000, outputTokens: 300 }));

    const response = await client.generate(triageRequest({ maxOutputTokens: 1024 }));

    expect(response.value).toEqual(triage);
    expect(response).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5', usage: { inputTokens: 2000, outputTokens: 300 } });
    const body = fake.requests[0]!.body as MessagesBody;
    expect(body).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 1024, system: 'You plan chat-ops tasks.' });
    expect(body.messages).toEqual([{ role: 'user', content: 'Why did the last deploy of acme/web fail?' }]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'triage_plan' });
    expect(body.tools[0]!.name).toBe('triage_plan');
    expect(body.tools[0]!.input_schema).toMatchObject({ type: 'object', required: ['goal', 'confidence', 'steps'] });
    expect(fake.requests[0]!.path).toBe('/v1/messages');
  });

  it('reports prose instead of the tool call as invalid-output with the raw text', async () => {
    const { client } = clientFor(env());
    fake.enqueue(anthropicReply.text('I would start by looking at the workflow runs.'));

    const error = await llmErrorOf(client.generate(triageRequest()));

    expect(error.kind).toBe('invalid-output');
    expect(error.details.raw).toBe('I would start by looking at the workflow runs.');
    expect(error.details.issues?.[0]).toMatch(/not valid JSON/);
  });

  it('reports a tool input of the wrong shape as invalid-output with its issues', async () => {
    const { client } = clientFor(env());
    fake.enqueue(anthropicReply.json({ goal: 'x', confidence: 'high', steps: [] }));

    const error = await llmErrorOf(client.generate(triageRequest()));

    expect(error.kind).toBe('invalid-output');
    expect(error.details.issues).toEqual([expect.stringMatching(/^confidence: /)]);
    expect(JSON.parse(error.details.raw!)).toEqual({ goal: 'x', confidence: 'high', steps: [] });
  });

  it('turns stop_reason refusal and max_tokens into their own error kinds', async () => {
    const { client } = clientFor(env());
    fake.enqueue(anthropicReply.refusal('I will not help delete the production database.'), anthropicReply.truncated({ goal: 'Find' }));

    const refusal = await llmErrorOf(client.generate(triageRequest()));
    const truncated = await llmErrorOf(client.generate(triageRequest()));

    expect(refusal.kind).toBe('refusal');
    expect(refusal.message).toMatch(/declined to answer: I will not help delete the production database/);
    expect(truncated.kind).toBe('max-tokens');
    expect(truncated.details.raw).toBe('{"goal":"Find"}');
  });

  it('waits out a 429 (retry-after) and then succeeds', async () => {
    const { client } = clientFor(env(), { maxRetries: 2 });
    fake.enqueue(anthropicReply.status(429, { 'retry-after': '0.05' }), anthropicReply.json(triage));

    expect((await client.generate(triageRequest())).value).toEqual(triage);
    expect(fake.requests).toHaveLength(2);
  });

  it('fails an overloaded storm (529) as unavailable after the configured retries', async () => {
    const { client } = clientFor(env(), { maxRetries: 1 });
    fake.enqueue(anthropicReply.status(529, { 'retry-after-ms': '10' }, 'Overloaded'), anthropicReply.status(529, { 'retry-after-ms': '10' }, 'Overloaded'));

    const error = await llmErrorOf(client.generate(triageRequest()));

    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/Anthropic \(model claude-haiku-4-5\) failed with 529 in 2 attempts\. It said: Overloaded/);
  });

  it('times out a stalled server as timeout', async () => {
    const { client } = clientFor(env(), { timeoutMs: 150, maxRetries: 0 });
    fake.enqueue(anthropicReply.stall(5_000));

    expect((await llmErrorOf(client.generate(triageRequest()))).kind).toBe('timeout');
  });

  it('names a rejected key as a configuration problem', async () => {
    const { client } = clientFor(env());
    fake.enqueue(anthropicReply.status(401, {}, 'invalid x-api-key'));

    const error = await llmErrorOf(client.generate(triageRequest()));

    expect(error.kind).toBe('not-configured');
    expect(error.message).toMatch(/rejected the API key \(401\)/);
  });

  it('treats garbage with a 200 as unavailable', async () => {
    const { client } = clientFor(env(), { maxRetries: 0 });
    fake.enqueue(anthropicReply.garbage('<html>gateway</html>'));

    expect((await llmErrorOf(client.generate(triageRequest()))).kind).toBe('unavailable');
  });
});
