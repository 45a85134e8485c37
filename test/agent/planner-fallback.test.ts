/**
 * PLANNER_FALLBACK_MODEL through the real SDKs: the planner on the fake OpenAI server, the fallback on
 * the fake Anthropic server, so which model wrote what is visible on the wire and in the store.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/agent/agent.ts';
import { InMemorySurface } from '../../src/agent/testing/in-memory-surface.ts';
import { loadConfig } from '../../src/config/config.ts';
import { summaryMessage } from '../../src/bot/views/run/summary.ts';
import { anthropicReply } from '../fakes/anthropic-server.ts';
import { openAiReply } from '../fakes/openai-server.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { fakeTool } from './support/fake-tools.ts';
import { BUDGETS, makeModelAgent } from './support/harness.ts';
import { plannerAnswer } from './support/scripted-llm.ts';
import { said } from '../helpers/words.ts';
import { fakeModelSettings, useFakeModels } from '../helpers/model-servers.ts';

const db = useMemoryStore();

const models = useFakeModels();

const good = (confidence = 0.9) => plannerAnswer({ goal: 'Read the thing', confidence, steps: [{ id: 's1', tool: 'read_thing', args: { key: 'a' } }] });
const bad = plannerAnswer({ steps: [{ id: 's1', tool: 'no_such_tool', args: {} }] });

function setup(fallback: string | undefined): { agent: Agent; surface: InMemorySurface; errors: unknown[] } {
  const config = loadConfig({
    ...fakeModelSettings(models),
    PLANNER_MODEL: 'openai:gpt-4o-mini',
    ...(fallback ? { PLANNER_FALLBACK_MODEL: fallback } : {}),
  });
  const store = db.store;
  const { agent, surface, errors } = makeModelAgent({
    store,
    config,
    tools: () => [fakeTool({ name: 'read_thing', risk: 'read' })],
    settings: { budgets: BUDGETS, retry: undefined, repositories: undefined },
  });
  return { agent, surface, errors };
}

async function start(agent: Agent) {
  const run = await agent.startRun({ task: 'read the thing', requester: 'UREQ', conversation: { channel: 'C1', threadTs: randomUUID() }, origin: 'mention' });
  await agent.idle();
  return (await db.store.getRun(run.id))!;
}

describe('planner fallback', () => {
  it('asks the fallback once when the planner is still invalid after its repair rounds; the version, usage and summary say so', async () => {
    const s = setup('anthropic:claude-opus-4-1');
    models.openai.enqueue(openAiReply.json(bad), openAiReply.json(bad), openAiReply.json(bad));
    models.anthropic.enqueue(anthropicReply.json(good(), { inputTokens: 900, outputTokens: 100 }));

    const run = await start(s.agent);

    expect(run.status).toBe('succeeded');
    expect(models.openai.requests).toHaveLength(3);
    expect(models.anthropic.requests).toHaveLength(1);
    const [version] = await db.store.listPlanVersions(run.id);
    expect(version).toMatchObject({ authorKind: 'planner', authorId: 'anthropic:claude-opus-4-1' });
    expect(version!.reason).toMatch(/fallback planner anthropic:claude-opus-4-1 because the planner's answer was still invalid after 2 repair rounds/);
    const byModel = await db.store.usageByModel(run.id);
    expect(byModel).toEqual(
      expect.arrayContaining([
        { role: 'planner', model: 'openai:gpt-4o-mini', inputTokens: 360, outputTokens: 90, costUsd: expect.any(Number) },
        { role: 'planner-fallback', model: 'anthropic:claude-opus-4-1', inputTokens: 900, outputTokens: 100, costUsd: expect.any(Number) },
      ]),
    );
    const [summary] = s.surface.of(run.id, 'summary');
    expect(summary!.summary.fallbackPlanner).toEqual({
      author: 'anthropic:claude-opus-4-1',
      reason: "the planner's answer was still invalid after 2 repair rounds",
    });
    // The usage per model is the cost's detail: shown where the team asked for cost (TANDEM_SHOW_COST).
    const text = JSON.stringify(summaryMessage(summary!.summary, { showCost: true }).blocks);
    expect(text).toContain('Planned by the fallback model anthropic:claude-opus-4-1');
    expect(text).toMatch(/planner-fallback anthropic:claude-opus-4-1: 1,000 tokens/);
    expect(s.errors).toEqual([]);
  });

  it('asks the fallback when the planner is under the confidence threshold, and runs its plan', async () => {
    const s = setup('anthropic:claude-opus-4-1');
    models.openai.enqueue(openAiReply.json(good(0.3)));
    models.anthropic.enqueue(anthropicReply.json(good(0.85)));

    const run = await start(s.agent);

    expect(run.status).toBe('succeeded');
    const [version] = await db.store.listPlanVersions(run.id);
    expect(version).toMatchObject({ authorId: 'anthropic:claude-opus-4-1', plan: { confidence: 0.85 } });
    expect(version!.reason).toMatch(/confidence 0.30 was below the threshold 0.6/);
  });

  it("keeps the planner's low-confidence plan (which escalates) when the fallback fails, and fails with both reasons when both are invalid", async () => {
    const s = setup('anthropic:claude-opus-4-1');
    models.openai.enqueue(openAiReply.json(good(0.3)));
    models.anthropic.enqueue(anthropicReply.status(500));
    const low = await start(s.agent);
    expect((await db.store.listPlanVersions(low.id))[0]).toMatchObject({ authorId: 'openai:gpt-4o-mini', reason: null });
    expect(s.surface.of(low.id, 'escalation')[0]?.escalation.kind).toBe('low-confidence');

    models.openai.enqueue(openAiReply.json(bad), openAiReply.json(bad), openAiReply.json(bad));
    models.anthropic.enqueue(anthropicReply.json(bad));
    const failed = await start(s.agent);
    expect(failed.status).toBe('failed');
    expect(said(s.surface.of(failed.id, 'notice')[0]?.text)).toMatch(
      /after 2 repair rounds: .*no_such_tool.* The fallback planner was asked once: its answer was invalid too/,
    );
  });

  it('without PLANNER_FALLBACK_MODEL behaves as before: three invalid answers fail the run and no other model is asked', async () => {
    const s = setup(undefined);
    models.openai.enqueue(openAiReply.json(bad), openAiReply.json(bad), openAiReply.json(bad));
    const run = await start(s.agent);
    expect(run.status).toBe('failed');
    expect(models.anthropic.requests).toHaveLength(0);
    expect(s.surface.of(run.id, 'summary')[0]!.summary.fallbackPlanner).toBeNull();
  });
});
