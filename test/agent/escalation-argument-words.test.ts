/**
 * An escalation says what failed in a person's words: a step whose argument could not be filled names the
 * argument, never the step's id or the parser's path ("s2.args.number: …" stays in the stored error for
 * `tandem show`). Real tools against the fake GitHub and the fake OpenAI.
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

it('a step whose filled argument is the wrong kind is escalated naming the argument, not "s2.args.number"', async () => {
  const pull = github.addPull('acme/api', { title: 'Fix login', head: 'fix-login' });
  openai.enqueue(
    openAiReply.json(
      plannerAnswer({
        goal: 'Look twice',
        steps: [
          { id: 's1', tool: 'github_get_pull', args: { repo: 'acme/api', number: pull.number } },
          {
            id: 's2',
            title: 'Read the pull named by the first',
            tool: 'github_get_pull',
            args: { repo: 'acme/api', number: '{{steps.s1.output.title}}' },
            dependsOn: ['s1'],
          },
        ],
      }),
    ),
  );
  const started = await agent.startRun({ task: 'look', requester: 'UREQ', conversation: { channel: 'C1', threadTs: randomUUID() }, origin: 'mention' });
  await agent.idle();

  const s2 = (await db.store.listSteps(started.id)).find((step) => step.stepId === 's2')!;
  expect(s2.status).toBe('failed');
  expect(said(s2.error!.message)).toMatch(/^s2\.args\.number: /);
  const escalation = surface.messages.find((message) => message.kind === 'escalation' && message.runId === started.id);
  expect(escalation?.kind === 'escalation' && said(escalation.offer.happened)).toMatch(/^“Read the pull named by the first” failed: argument number: /);
  expect(JSON.stringify(escalation?.kind === 'escalation' && escalation.offer)).not.toContain('s2.args');
});
