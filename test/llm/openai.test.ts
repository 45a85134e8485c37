import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LlmError } from '../../src/agent/model/errors.ts';
import { openAiReply, startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import { clientFor, closedPort, failureOf, triage, triageRequest } from './helpers.ts';

let fake: FakeOpenAi;
beforeEach(async () => {
  fake = await startFakeOpenAi();
});
afterEach(async () => {
  await fake.close();
});

const env = () => ({ OPENAI_API_KEY: 'sk-test-openai-0000000000', OPENAI_BASE_URL: fake.url, PLANNER_MODEL: 'openai:gpt-4o' });

async function llmErrorOf(promise: Promise<unknown>): Promise<LlmError> {
  const error = await failureOf(promise);
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

describe('OpenAI adapter against a Chat Completions server', () => {
  it('sends the schema as strict json_schema and returns the parsed answer with usage', async () => {
    const { client } = clientFor(env());
    fake.enqueue(openAiReply.json(triage, { inputTokens: 1000, outputTokens: 200 }));

    const response = await client.generate(triageRequest());

    expect(response.value).toEqual(triage);
    expect(response).toMatchObject({ provider: 'openai', model: 'gpt-4o', usage: { inputTokens: 1000, outputTokens: 200 } });
    const body = fake.requests[0]!.body as {
      model: string;
      messages: unknown[];
      response_format: { type: string; json_schema: { name: string; strict: boolean; schema: { required: string[] } } };
    };
    expect(body.model).toBe('gpt-4o');
    expect(body.messages[0]).toEqual({ role: 'system', content: 'You plan chat-ops tasks.' });
    expect(body.response_format.type).toBe('json_schema');
    expect(body.response_format.json_schema).toMatchObject({ name: 'triage_plan', strict: true });
    expect(body.response_format.json_schema.schema.required).toEqual(['goal', 'confidence', 'steps']);
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-test-openai-0000000000');
  });

  it('reports an answer that is not JSON as invalid-output, carrying the raw text for a repair round', async () => {
    const { client } = clientFor(env());
    fake.enqueue(openAiReply.text('Sure! Here is the plan: step one, check the runs.'));

    const error = await llmErrorOf(client.generate(triageRequest()));

    expect(error.kind).toBe('invalid-output');
    expect(error.details.raw).toBe('Sure! Here is the plan: step one, check the runs.');
    expect(error.details.issues?.[0]).toMatch(/not valid JSON/);
    expect(error.message).toMatch(/planner model \(gpt-4o\) gave a triage_plan that does not fit/);
  });

  it('reports JSON of the wrong shape as invalid-output with the path of each issue', async () => {
    const { client } = clientFor(env());
    fake.enqueue(openAiReply.json({ goal: 'x', confidence: 7, steps: [{ id: 's1', note: null }] }));

    const error = await llmErrorOf(client.generate(triageRequest()));

    expect(error.kind).toBe('invalid-output');
    expect(error.details.issues).toEqual(expect.arrayContaining([expect.stringMatching(/^confidence: /), expect.stringMatching(/^steps\.0\.tool: /)]));
    expect(JSON.parse(error.details.raw!)).toMatchObject({ confidence: 7 });
  });

  it('waits out a 429 (retry-after) and then succeeds', async () => {
    const { client } = clientFor(env(), { maxRetries: 2 });
    fake.enqueue(openAiReply.status(429, { 'retry-after': '0.05' }, 'Rate limit reached for gpt-4o'), openAiReply.json(triage));

    const response = await client.generate(triageRequest());

    expect(response.value).toEqual(triage);
    expect(fake.requests).toHaveLength(2);
  });

  it('gives up on a 429 that does not clear, as rate-limited', async () => {
    const { client } = clientFor(env(), { maxRetries: 1 });
    fake.enqueue(openAiReply.status(429, { 'retry-after': '0.01' }), openAiReply.status(429, { 'retry-after': '0.01' }));

    const error = await llmErrorOf(client.generate(triageRequest()));

    expect(error.kind).toBe('rate-limited');
    expect(error.details.status).toBe(429);
    expect(error.message).toMatch(/rate-limiting/);
  });

  it('fails a 500 storm as unavailable after the configured retries, saying what happened', async () => {
    const { client } = clientFor(env(), { maxRetries: 2 });
    fake.enqueue(
      openAiReply.status(500, { 'retry-after-ms': '10' }),
      openAiReply.status(502, { 'retry-after-ms': '10' }),
      openAiReply.status(503, { 'retry-after-ms': '10' }),
    );

    const error = await llmErrorOf(client.generate(triageRequest()));

    expect(error.kind).toBe('unavailable');
    expect(error.details.status).toBe(503);
    expect(error.message).toMatch(/failed with 503 in 3 attempts/);
    expect(fake.requests).toHaveLength(3);
  });

  it('times out a stalled server as timeout', async () => {
    const { client } = clientFor(env(), { timeoutMs: 150, maxRetries: 1 });
    fake.enqueue(openAiReply.stall(5_000), openAiReply.stall(5_000));

    const error = await llmErrorOf(client.generate(triageRequest()));

    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/did not answer within 150 ms in 2 attempts/);
  });

  it('treats a 200 whose body is not a chat completion as unavailable', async () => {
    const { client } = clientFor(env(), { maxRetries: 0 });
    fake.enqueue(openAiReply.garbage('{"status":"ok"}'), openAiReply.garbage('<html>oops</html>'));

    expect((await llmErrorOf(client.generate(triageRequest()))).kind).toBe('unavailable');
    expect((await llmErrorOf(client.generate(triageRequest()))).kind).toBe('unavailable');
  });

  it('turns a refusal and a truncated answer into their own error kinds', async () => {
    const { client, usage } = clientFor(env());
    fake.enqueue(openAiReply.refusal('I cannot help with deleting production.'), openAiReply.truncated('{"goal":"Find why'));

    const refusal = await llmErrorOf(client.generate(triageRequest()));
    const truncated = await llmErrorOf(client.generate(triageRequest({ maxOutputTokens: 50 })));

    expect(refusal.kind).toBe('refusal');
    expect(refusal.message).toMatch(/declined to answer: I cannot help with deleting production/);
    expect(truncated.kind).toBe('max-tokens');
    expect(truncated.message).toMatch(/output limit of 50 tokens/);
    expect((fake.requests[1]!.body as { max_tokens?: number }).max_tokens).toBe(50);
    // Both answers were paid for, so both are recorded.
    expect(usage).toHaveLength(2);
  });

  it('falls back to JSON mode when a compatible server rejects json_schema, and remembers it', async () => {
    const { client, logLines } = clientFor({ ...env(), PLANNER_MODEL: 'openai:llama3.1:8b' });
    fake.enqueue(openAiReply.rejectJsonSchema(), openAiReply.text('```json\n' + JSON.stringify(triage) + '\n```'), openAiReply.json(triage));

    const first = await client.generate(triageRequest());
    const second = await client.generate(triageRequest());

    expect(first.value).toEqual(triage);
    expect(second.value).toEqual(triage);
    const formats = fake.requests.map((request) => (request.body as { response_format: { type: string } }).response_format.type);
    expect(formats).toEqual(['json_schema', 'json_object', 'json_object']);
    const fallbackSystem = (fake.requests[1]!.body as { messages: { content: string }[] }).messages[0]!.content;
    expect(fallbackSystem).toMatch(/single JSON object/);
    expect(fallbackSystem).toContain('"confidence"');
    expect(logLines.join('')).toMatch(/rejected json_schema/);
  });

  it('reports a server that is not there as unavailable', async () => {
    const port = await closedPort();
    const { client } = clientFor({ ...env(), OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` }, { maxRetries: 0 });

    const error = await llmErrorOf(client.generate(triageRequest()));

    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/Could not reach the OpenAI-compatible server at 127\.0\.0\.1:\d+ .*connection refused/);
  });
});
