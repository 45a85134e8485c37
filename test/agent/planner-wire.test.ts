import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makePlan } from '../../src/agent/planning/planner.ts';
import type { AnyTool } from '../../src/agent/ports/tool.ts';
import { createToolRegistry } from '../../src/agent/model/tool-registry.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createLlmClient } from '../../src/integrations/llm/index.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { anthropicReply } from '../fakes/anthropic-server.ts';
import { openAiReply } from '../fakes/openai-server.ts';
import { fakeModelSettings, useFakeModels } from '../helpers/model-servers.ts';

// Through the real SDKs: what a model provider sends back is what the planner has to live with.
const tools: AnyTool[] = [
  {
    name: 'github_get_repo',
    description: 'Read a repository',
    risk: 'read',
    input: z.object({ repo: z.string() }),
    run: async () => ({ status: 'ok', output: {} }),
  },
  {
    name: 'github_create_release',
    description: 'Create a release',
    risk: 'write',
    input: z.object({ repo: z.string(), tag: z.string() }),
    run: async () => ({ status: 'ok', output: {} }),
  },
];

/** The plan artifact in its documented shape (docs/plan.schema.json): args as objects. */
const artifact = {
  goal: 'Cut release v2.4.0 of acme/api',
  confidence: 0.8,
  steps: [
    { id: 's1', title: 'Read the repo', tool: 'github_get_repo', args: { repo: 'acme/api' }, dependsOn: [] },
    {
      id: 's2',
      title: 'Create the release',
      tool: 'github_create_release',
      args: { repo: 'acme/api', tag: 'v2.4.0' },
      dependsOn: ['s1'],
      expect: 'a release URL',
    },
  ],
  rollback: [],
};

const models = useFakeModels();

function planner(model: string) {
  const config = loadConfig({
    ...fakeModelSettings(models),
    PLANNER_MODEL: model,
  });
  const llm = createLlmClient({ config, logger: createLogger({ level: 'silent', secrets: [] }), onUsage: () => {}, maxRetries: 0 });
  return makePlan(
    { llm, tools: createToolRegistry(tools), maxSteps: 20, secrets: [] },
    { task: 'cut release v2.4.0 of acme/api', requester: 'U1', origin: 'mention' },
  );
}

describe('the planner over the wire', () => {
  it('accepts a model that answers with the plan artifact itself instead of the answer schema (OpenAI)', async () => {
    models.openai.enqueue(openAiReply.json(artifact));
    const result = await planner('openai:gpt-4o');
    expect(result.ok && result.value.plan.steps.map((s) => [s.id, s.args])).toEqual([
      ['s1', { repo: 'acme/api' }],
      ['s2', { repo: 'acme/api', tag: 'v2.4.0' }],
    ]);
    expect(models.openai.requests).toHaveLength(1);
  });

  it('accepts the plan artifact from an Anthropic tool call', async () => {
    models.anthropic.enqueue(anthropicReply.json(artifact));
    const result = await planner('anthropic:claude-haiku-4-5');
    expect(result.ok && result.value.plan.goal).toBe('Cut release v2.4.0 of acme/api');
  });

  it('still repairs an artifact-shaped answer that names an unknown tool, showing the model why', async () => {
    models.openai.enqueue(openAiReply.json({ ...artifact, steps: [{ ...artifact.steps[0], tool: 'deploy_everything' }] }), openAiReply.json(artifact));
    const result = await planner('openai:gpt-4o');
    expect(result.ok).toBe(true);
    expect(JSON.stringify(models.openai.requests[1]?.body)).toContain('s1.tool: unknown tool deploy_everything');
  });
});
