/**
 * "Not covered: clean up acme/api — no tool for it" (issue 29, part 4): the planner says which parts of a
 * request its plan does not do, through the real SDKs against the fake providers; the plan stores it, its
 * message says it, and it is not part of what an approval binds to. A model answering the older shape
 * (no `notCovered`) still plans.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makePlan } from '../../src/agent/planning/planner.ts';
import type { AnyTool } from '../../src/agent/ports/tool.ts';
import { PlanSchema, type Plan } from '../../src/agent/model/plan/plan.ts';
import { planDigest } from '../../src/agent/model/plan/plan-digest.ts';
import { createToolRegistry } from '../../src/agent/model/tool-registry.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createLlmClient } from '../../src/integrations/llm/index.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { MessageBlocksSchema } from '../../src/bot/views/limits.ts';
import { planMessages } from '../../src/bot/views/plan/plan-message.ts';
import { yamlChunks } from '../../src/bot/views/plan/modify-modal.ts';
import { parsePlanYaml } from '../../src/bot/modify-submission.ts';
import { deployReplan } from '../../src/demo/model/demo-plans.ts';
import { anthropicReply } from '../fakes/anthropic-server.ts';
import { openAiReply } from '../fakes/openai-server.ts';
import { makeProposal } from '../fakes/slack-fixtures.ts';
import { fakeModelSettings, useFakeModels } from '../helpers/model-servers.ts';

const tools: AnyTool[] = [
  {
    name: 'github_get_repo',
    description: 'Read a repository',
    risk: 'read',
    input: z.object({ repo: z.string() }),
    run: async () => ({ status: 'ok', output: {} }),
  },
];

/** The answer in the planner's schema (argsJson), with or without the newer field. */
const answer = {
  goal: 'Read acme/api',
  confidence: 0.8,
  steps: [{ id: 's1', title: 'Read acme/api', tool: 'github_get_repo', argsJson: '{"repo":"acme/api"}', dependsOn: [], expect: null }],
  rollback: [],
  questions: [],
};
const gap = { part: 'clean up acme/api', reason: 'no tool for it' };

const models = useFakeModels();

function planner(model: string) {
  const config = loadConfig({ ...fakeModelSettings(models), PLANNER_MODEL: model });
  const llm = createLlmClient({ config, logger: createLogger({ level: 'silent', secrets: [] }), onUsage: () => {}, maxRetries: 0 });
  return makePlan(
    { llm, tools: createToolRegistry(tools), maxSteps: 20, secrets: [] },
    { task: 'read acme/api and clean it up', requester: 'U1', origin: 'mention' },
  );
}

/** Every object schema in a JSON Schema, for strict mode's rules: all properties required, none open, no `default`. */
function objectsOf(schema: unknown): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const walk = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (record.type === 'object') found.push(record);
    Object.values(record).forEach(walk);
  };
  walk(schema);
  return found;
}

describe('what a plan does not cover, over the wire', () => {
  it('OpenAI strict structured output: notCovered is sent as required (no default keyword), and the answer’s parts reach the plan', async () => {
    models.openai.enqueue(openAiReply.json({ ...answer, notCovered: [gap] }));
    const result = await planner('openai:gpt-4o');
    expect(result.ok && result.value.plan.notCovered).toEqual([gap]);
    const format = (models.openai.requests[0]!.body as { response_format: { json_schema: { strict: boolean; schema: Record<string, unknown> } } })
      .response_format.json_schema;
    expect(format.strict).toBe(true);
    expect(format.schema.required).toContain('notCovered');
    for (const object of objectsOf(format.schema)) {
      expect(Object.keys(object.properties as object).sort()).toEqual([...(object.required as string[])].sort());
      expect(object.additionalProperties).toBe(false);
    }
    expect(JSON.stringify(format.schema)).not.toContain('"default"');
    expect(JSON.stringify(models.openai.requests[0]!.body)).toContain('notCovered: each part of the task this plan does not do');
  });

  it('a model answering the older shape, without notCovered, still plans (OpenAI)', async () => {
    models.openai.enqueue(openAiReply.json(answer));
    const result = await planner('openai:gpt-4o');
    expect(result.ok && result.value.plan.steps).toHaveLength(1);
    expect(result.ok && result.value.plan.notCovered).toBeUndefined();
    expect(models.openai.requests).toHaveLength(1); // no repair round spent on it
  });

  it('Anthropic forced tool use: notCovered is required in the tool’s input schema; the old shape still plans', async () => {
    models.anthropic.enqueue(anthropicReply.json({ ...answer, notCovered: [gap, { part: '  ', reason: 'empty parts are dropped' }] }));
    const result = await planner('anthropic:claude-haiku-4-5');
    expect(result.ok && result.value.plan.notCovered).toEqual([gap]);
    const tool = (models.anthropic.requests[0]!.body as { tools: { input_schema: { required: string[] } }[] }).tools[0]!;
    expect(tool.input_schema.required).toContain('notCovered');
    models.anthropic.enqueue(anthropicReply.json(answer));
    const old = await planner('anthropic:claude-haiku-4-5');
    expect(old.ok && old.value.plan.goal).toBe('Read acme/api');
  });
});

describe('what a plan does not cover, on the plan', () => {
  const plan: Plan = {
    schemaVersion: 1,
    goal: 'Read acme/api',
    confidence: 0.8,
    steps: [{ id: 's1', title: 'Read acme/api', tool: 'github_get_repo', args: { repo: 'acme/api' }, dependsOn: [] }],
    rollback: [],
    notCovered: [gap],
  };

  it('the plan message says it in one line; many parts are listed within Slack’s limits', () => {
    const [view] = planMessages(makeProposal(plan));
    expect(MessageBlocksSchema.safeParse(view!.blocks).success).toBe(true);
    expect(JSON.stringify(view!.blocks)).toContain('*Not covered:* clean up acme/api — no tool for it');
    const many = { ...plan, notCovered: Array.from({ length: 20 }, (_, i) => ({ part: `part ${i} <x> ${'long '.repeat(60)}`, reason: 'r '.repeat(150) })) };
    const views = planMessages(makeProposal(many));
    for (const each of views) expect(MessageBlocksSchema.safeParse(each.blocks).success).toBe(true);
    const shown = views.map((each) => JSON.stringify(each.blocks)).join('');
    expect(shown).toContain('part 19 &lt;x&gt;');
    const without = JSON.stringify(planMessages(makeProposal({ ...plan, notCovered: undefined }))[0]!.blocks);
    expect(without).not.toContain('Not covered');
  });

  it('is not part of the digest: nothing in it runs, so an approval binds to the steps alone', async () => {
    expect(await planDigest(plan)).toBe(await planDigest({ ...plan, notCovered: undefined }));
  });

  it('stays with the plan through Modify’s YAML', () => {
    const chunks = yamlChunks(plan)!;
    expect(chunks.join('\n')).toContain('clean up acme/api');
    const parsed = parsePlanYaml(chunks.map((text, index) => ({ blockId: `yaml-${index}`, text })));
    expect(parsed.ok && PlanSchema.parse(parsed.value).notCovered).toEqual([gap]);
  });

  it('the demo model’s replan of a failed deploy says the deploy itself is not covered', () => {
    const replan = deployReplan({ healthUrl: (name) => `http://127.0.0.1:1/${name}/health` });
    expect(replan.notCovered).toEqual([expect.objectContaining({ part: 'deploy main of demo/web' })]);
  });
});
