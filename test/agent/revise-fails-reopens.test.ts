/**
 * A Revise of a low-confidence plan closes its escalation; when the planner then fails, the plan still
 * stands and so does the doubt: it is asked again (a new low-confidence escalation of that version, with
 * its message), so the run never waits with nothing anyone can answer. Through the real OpenAI SDK against
 * the fake OpenAI server.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Agent } from '../../src/agent/agent.ts';
import type { InMemorySurface } from '../../src/agent/testing/in-memory-surface.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createBuiltinTools } from '../../src/integrations/tools/builtin-tools.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';
import { openAiReply, startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { said } from '../helpers/words.ts';
import { testGithub } from '../tools/tool-context.ts';
import { makeModelAgent } from './support/harness.ts';
import { plannerAnswer } from './support/scripted-llm.ts';

const db = useMemoryStore();
let openai: FakeOpenAi;
let github: FakeGithub;
let agent: Agent;
let surface: InMemorySurface;

beforeEach(async () => {
  [openai, github] = await Promise.all([startFakeOpenAi(), startFakeGithub()]);
  github.addRepo('acme/api');
  const config = loadConfig({ OPENAI_API_KEY: 'sk-test-0000000000000000', OPENAI_BASE_URL: openai.url, PLANNER_MODEL: 'openai:gpt-4o' });
  ({ agent, surface } = makeModelAgent({
    store: db.store,
    config,
    tools: (llm) => createBuiltinTools({ github: testGithub(github.url), slack: undefined, llm, httpAllow: [] }),
  }));
});
afterEach(async () => {
  await Promise.all([openai.close(), github.close()]);
});

const escalationsOf = (runId: string) => surface.messages.filter((message) => message.kind === 'escalation' && message.runId === runId);

it('a Revise the planner fails leaves the doubt open again: a new escalation of the same version, answerable', async () => {
  openai.enqueue(
    openAiReply.json(plannerAnswer({ goal: 'Read acme/api', confidence: 0.3, steps: [{ id: 's1', tool: 'github_get_repo', args: { repo: 'acme/api' } }] })),
  );
  const run = await agent.startRun({ task: 'read acme/api', requester: 'UREQ', conversation: { channel: 'C1', threadTs: randomUUID() }, origin: 'mention' });
  await agent.idle();
  const [first] = await db.store.listEscalations(run.id);
  expect(first).toMatchObject({ kind: 'low-confidence', status: 'open' });

  openai.enqueue(openAiReply.status(500));
  const revised = await agent.revisePlan({ runId: run.id, planVersion: 1, userId: 'UREQ', instruction: 'read acme/web as well' });
  expect(revised.ok).toBe(true);
  await agent.idle();

  expect((await db.store.getRun(run.id))?.status).toBe('awaiting-approval');
  const escalations = await db.store.listEscalations(run.id);
  expect(escalations.map((e) => [e.kind, e.status])).toEqual([
    ['low-confidence', 'resolved'],
    ['low-confidence', 'open'],
  ]);
  const reopened = escalations[1]!;
  expect(reopened.planVersion).toBe(1);
  expect(said(reopened.message)).toMatch(/^The planner could not revise the plan \(.+\), so version 1 still stands\. Not acting on my own: /);
  // Its message reached the thread with answers, and one of them goes ahead with version 1.
  expect(escalationsOf(run.id)).toHaveLength(2);
  const answered = await agent.resolveEscalation({ escalationId: reopened.id, userId: 'UAPP', action: 'approve' });
  expect(answered.ok).toBe(true);
  await agent.idle();
  expect((await db.store.getRun(run.id))?.status).toBe('succeeded');
});

it('a Revise of a plan nobody doubted opens nothing when the planner fails: the plan still waits for its approval', async () => {
  openai.enqueue(
    openAiReply.json(
      plannerAnswer({ goal: 'Read acme/api', confidence: 0.9, steps: [{ id: 's1', tool: 'github_create_issue', args: { repo: 'acme/api', title: 'x' } }] }),
    ),
  );
  const run = await agent.startRun({ task: 'open an issue', requester: 'UREQ', conversation: { channel: 'C1', threadTs: randomUUID() }, origin: 'mention' });
  await agent.idle();
  openai.enqueue(openAiReply.status(500));
  const revised = await agent.revisePlan({ runId: run.id, planVersion: 1, userId: 'UREQ', instruction: 'add a label' });
  expect(revised.ok).toBe(true);
  await agent.idle();
  expect((await db.store.getRun(run.id))?.status).toBe('awaiting-approval');
  expect(await db.store.listEscalations(run.id)).toEqual([]);
});
