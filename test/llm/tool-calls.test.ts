/** LlmClient.converse through the real SDKs: one tool-loop turn, its usage recorded once, failures typed. */
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/agent/model/errors.ts';
import type { LlmToolRequest } from '../../src/agent/ports/llm.ts';
import { anthropicReply } from '../fakes/anthropic-server.ts';
import { openAiReply } from '../fakes/openai-server.ts';
import { clientFor, failureOf } from './helpers.ts';
import { useFakeModels } from '../helpers/model-servers.ts';

const models = useFakeModels();

const env = (model: string) => ({
  OPENAI_API_KEY: 'sk-test-openai-0000000000',
  OPENAI_BASE_URL: models.openai.url,
  ANTHROPIC_API_KEY: 'sk-ant-test-0000000000',
  ANTHROPIC_BASE_URL: models.anthropic.url,
  PLANNER_MODEL: model,
});

const turn = (overrides: Partial<LlmToolRequest> = {}): LlmToolRequest => ({
  role: 'executor',
  system: 'Investigate.',
  messages: [{ role: 'user', content: 'Why did run 41 fail? The key is sk-test-openai-0000000000.' }],
  tools: [{ name: 'get_run', description: 'Read a run', inputSchema: { type: 'object', properties: { runId: { type: 'number' } }, required: ['runId'] } }],
  runId: 'run-9',
  ...overrides,
});

describe('tool-loop turns', () => {
  it('OpenAI: offers the tools, returns the calls (args as sent when they are not JSON), records usage once, and never sends the key in a prompt', async () => {
    const { client, usage } = clientFor(env('openai:gpt-4o'));
    models.openai.enqueue(
      openAiReply.toolCalls(
        [
          { name: 'get_run', args: { runId: 41 } },
          { name: 'get_run', rawArguments: '{runId: 41' },
        ],
        null,
        { inputTokens: 500, outputTokens: 40 },
      ),
    );

    const response = await client.converse!(turn());

    expect(response.toolCalls).toEqual([
      { id: 'call_fake1_1', name: 'get_run', args: { runId: 41 } },
      { id: 'call_fake1_2', name: 'get_run', args: '{runId: 41' },
    ]);
    expect(usage).toEqual([
      { runId: 'run-9', role: 'executor', provider: 'openai', model: 'gpt-4o', inputTokens: 500, outputTokens: 40, costUsd: expect.closeTo(0.00165, 8) },
    ]);
    const body = models.openai.requests[0]!.body as { tools: { type: string; function: { name: string } }[]; tool_choice: string };
    expect(body.tools).toEqual([{ type: 'function', function: expect.objectContaining({ name: 'get_run' }) }]);
    expect(body.tool_choice).toBe('auto');
    expect(JSON.stringify(body)).not.toContain('sk-test-openai-0000000000');
  });

  it('OpenAI: a refusal and a cut-off turn are typed errors, each still recorded as paid', async () => {
    const { client, usage } = clientFor(env('openai:gpt-4o'));
    models.openai.enqueue(openAiReply.refusal(), openAiReply.truncated('Looking'));
    expect(((await failureOf(client.converse!(turn()))) as LlmError).kind).toBe('refusal');
    expect(((await failureOf(client.converse!(turn()))) as LlmError).kind).toBe('max-tokens');
    expect(usage).toHaveLength(2);
  });

  it('Anthropic: tool results go back as tool_result blocks, a text answer ends the loop, and an error is typed', async () => {
    const { client, usage } = clientFor(env('anthropic:claude-haiku-4-5'));
    models.anthropic.enqueue(anthropicReply.text('Run 41 failed in migrate.'), anthropicReply.status(400));
    const response = await client.converse!(
      turn({
        messages: [
          { role: 'user', content: 'Why did run 41 fail?' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_1', name: 'get_run', args: { runId: 41 } }] },
          { role: 'tool', results: [{ callId: 'toolu_1', content: '<data source="result of get_run">{}</data>' }] },
        ],
        toolChoice: 'none',
      }),
    );
    expect(response).toMatchObject({ text: 'Run 41 failed in migrate.', toolCalls: [], provider: 'anthropic', model: 'claude-haiku-4-5' });
    const body = models.anthropic.requests[0]!.body as { tool_choice: unknown; messages: unknown[] };
    expect(body.tool_choice).toEqual({ type: 'none' });
    expect(body.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_run', input: { runId: 41 } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '<data source="result of get_run">{}</data>' }] },
    ]);
    const error = await failureOf(client.converse!(turn()));
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).kind).toBe('unavailable');
    expect(usage).toHaveLength(1);
  });
});
