import { describe, expect, it } from 'vitest';
import { anthropicReply, startFakeAnthropic } from '../fakes/anthropic-server.ts';
import { openAiReply, startFakeOpenAi } from '../fakes/openai-server.ts';
import { clientFor, failureOf, triage, triageRequest } from './helpers.ts';

// Other suites script these fakes; a fake that let a stray call pass would hide real bugs there.
describe('fake LLM servers', () => {
  it('answer an unscripted call with a loud error, and fail close()', async () => {
    const fake = await startFakeOpenAi();
    const { client } = clientFor({ OPENAI_API_KEY: 'sk-test-openai-0000000000', OPENAI_BASE_URL: fake.url, PLANNER_MODEL: 'openai:gpt-4o' });

    const error = await failureOf(client.generate(triageRequest()));

    expect(String(error)).toMatch(/unexpected request: no scripted reply left/);
    expect(fake.requests).toHaveLength(1); // marked not-retryable, so the SDK does not hammer it
    await expect(fake.close()).rejects.toThrow(/fake OpenAI: request #1 POST \/v1\/chat\/completions: unexpected request/);
  });

  it('fail close() when a scripted reply was never used', async () => {
    const fake = await startFakeAnthropic();
    fake.enqueue(anthropicReply.json(triage));

    await expect(fake.close()).rejects.toThrow(/1 scripted reply was never requested/);
  });

  it('accept the Anthropic key as x-api-key as well as a bearer token, and refuse neither', async () => {
    const fake = await startFakeAnthropic();
    fake.enqueue(anthropicReply.json(triage));
    const post = (headers: Record<string, string>) =>
      fetch(`${fake.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'claude-haiku-4-5', messages: [] }),
      });

    const withKey = await post({ 'x-api-key': 'sk-ant-test-000000000000' });
    const without = await post({});

    expect(withKey.status).toBe(200);
    expect(await withKey.json()).toMatchObject({ type: 'message', stop_reason: 'end_turn', content: [{ type: 'text', text: JSON.stringify(triage) }] });
    expect(without.status).toBe(401);
    await expect(fake.close()).rejects.toThrow(/missing x-api-key or Authorization/);
  });

  it('refuse a JSON-mode request scripted as a json_schema rejection', async () => {
    const fake = await startFakeOpenAi();
    fake.enqueue(openAiReply.rejectJsonSchema());

    const response = await fetch(`${fake.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [], response_format: { type: 'json_object' } }),
    });

    expect(response.status).toBe(500);
    await expect(fake.close()).rejects.toThrow(/scripted to reject response_format json_schema/);
  });
});
