/**
 * agent_task under TANDEM_REPOS: the repositories its model picks at run time are judged like a plan's,
 * so a call on a repository off the list is refused and never reaches the tool.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config/config.ts';
import { createAgentTaskTool } from '../../src/integrations/tools/model/agent-task.ts';
import { openAiReply, startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { makeModelAgent } from '../agent/support/harness.ts';
import { fakeTool } from '../agent/support/fake-tools.ts';
import { plannerAnswer } from '../agent/support/scripted-llm.ts';

const db = useMemoryStore();
let openai: FakeOpenAi;
beforeEach(async () => {
  openai = await startFakeOpenAi();
});
afterEach(() => openai.close());

describe('agent_task under TANDEM_REPOS', () => {
  it("refuses its model's call on a repository off the list and lets the one on the list through", async () => {
    const config = loadConfig({
      OPENAI_API_KEY: 'sk-test-0000000000000000',
      OPENAI_BASE_URL: openai.url,
      PLANNER_MODEL: 'openai:gpt-4o',
      TANDEM_REPOS: 'acme/api',
    });
    const getRepo = Object.assign(fakeTool({ name: 'get_repo', risk: 'read', input: z.object({ repo: z.string() }) }), { targets: ['repo'] as const });
    const { agent, errors } = makeModelAgent({ store: db.store, config, tools: (llm) => [getRepo, createAgentTaskTool(llm)] });
    openai.enqueue(
      openAiReply.json(
        plannerAnswer({
          goal: 'Compare',
          steps: [{ id: 's1', tool: 'agent_task', args: { instruction: 'Compare acme/api with its fork', tools: ['get_repo'], maxCalls: 4 } }],
        }),
      ),
      openAiReply.toolCalls([{ name: 'get_repo', args: { repo: 'victim-org/prod' } }]),
      openAiReply.toolCalls([{ name: 'get_repo', args: { repo: 'ACME/api' } }]),
      openAiReply.text('Only acme/api could be read.'),
    );

    const started = await agent.startRun({ task: 'compare', requester: 'UREQ', conversation: { channel: 'C1', threadTs: randomUUID() }, origin: 'mention' });
    await agent.idle();

    expect((await db.store.getRun(started.id))?.status).toBe('succeeded');
    expect(getRepo.calls.map((call) => call.args)).toEqual([{ repo: 'ACME/api' }]);
    const calls = (await db.store.listEvents(started.id))
      .filter((event) => event.type === 'agent-call')
      .map((event) => event.data as { tool: string; ok: boolean; refused?: string });
    expect(calls).toMatchObject([
      { tool: 'get_repo', ok: false, refused: 'get_repo repo: victim-org/prod is not on the allow-list: the repository allow-list allows only acme/api' },
      { tool: 'get_repo', ok: true },
    ]);
    expect(errors).toEqual([]);
  });
});
