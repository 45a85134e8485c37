/**
 * Decision 058: text filled in at run time cannot @-mention people on GitHub. A pull request title or a
 * person's answer carried into a comment, an issue or release notes reads the same but notifies nobody;
 * a mention the plan's own text completes around a value fails the step before anything is posted; the
 * plan's own mentions (which the approver read) and a tag or ref that holds an `@` are sent as written.
 * Real tools against the fake GitHub.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/agent/model/plan/plan.ts';
import { planFlags } from '../../src/bot/views/plan/plan-flags.ts';
import { createBuiltinTools } from '../../src/integrations/tools/builtin-tools.ts';
import { MENTION_NOT_APPROVED } from '../../src/integrations/tools/github/github-mentions.ts';
import { makeHarness, type Harness } from '../agent/support/harness.ts';
import { ScriptedLlm, plannerAnswer, type StepSketch } from '../agent/support/scripted-llm.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { testGithub } from './tool-context.ts';

const db = useMemoryStore();
let github: FakeGithub;
/** The test's harness, checked after it: no unused scripted answer, no logged error. */
let current: Harness | undefined;

beforeEach(async () => {
  github = await startFakeGithub();
  github.addRepo('acme/api');
});
afterEach(async () => {
  current?.llm.assertDone();
  expect(current?.errors ?? []).toEqual([]);
  current = undefined;
  await github.close();
});

/** What GitHub notifies: `@login` or `@org/team` after a non-word character (its mention filter's pattern). */
const notified = (text: string) => [...text.matchAll(/(?:^|\W)@([a-z0-9][a-z0-9-]*(?:\/[a-z0-9][a-z0-9_.-]*)?)/gi)].map((match) => `@${match[1]}`);
/** The text as a reader sees it: invisible characters are not seen. */
const shown = (text: string) => text.replace(/[\u200b-\u200d\u2060]/g, '');

async function approvedRun(steps: StepSketch[]) {
  const tools = createBuiltinTools({ github: testGithub(github.url), slack: undefined, llm: undefined, httpAllow: [] });
  const h = makeHarness({ store: db.store, tools, llm: new ScriptedLlm().on('planner', plannerAnswer({ steps })), budgets: { maxReplans: 0 } });
  current = h;
  const run = await h.start();
  await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
  await h.agent.idle();
  return { run, h };
}

const posted = (path: string) =>
  github.requests.filter((request) => request.method === 'POST' && request.path === path).map((request) => request.body as Record<string, string>);

describe('GitHub mentions in filled-in text', () => {
  it('a pull request title carried into a comment, an issue and release notes notifies nobody, and reads the same', async () => {
    const title = 'Fix login (thanks @acme/everyone and @bob, mail ops@acme.dev)';
    const pull = github.addPull('acme/api', { title, head: 'fix-login' });
    const { run } = await approvedRun([
      { id: 'get', tool: 'github_get_pull', args: { repo: 'acme/api', number: pull.number } },
      { id: 'say', tool: 'github_comment', args: { repo: 'acme/api', number: pull.number, body: 'Merged: {{steps.get.output.title}}' }, dependsOn: ['get'] },
      {
        id: 'file',
        tool: 'github_create_issue',
        args: { repo: 'acme/api', title: '{{steps.get.output.title}}', body: '{{steps.get.output.title}}' },
        dependsOn: ['get'],
      },
      {
        id: 'ship',
        tool: 'github_create_release',
        args: { repo: 'acme/api', tag: 'v1.0.0', name: '{{steps.get.output.title}}', body: '- {{steps.get.output.title}}' },
        dependsOn: ['get'],
      },
    ]);

    expect((await db.store.getRun(run.id))?.status).toBe('succeeded');
    const [comment] = posted(`/repos/acme/api/issues/${pull.number}/comments`);
    const [issue] = posted('/repos/acme/api/issues');
    const [release] = posted('/repos/acme/api/releases');
    for (const text of [comment!.body!, issue!.title!, issue!.body!, release!.name!, release!.body!]) {
      expect(notified(text), text).toEqual([]);
      expect(shown(text)).toContain(title);
    }
  });

  it('fails a comment whose planned @ is completed by a person’s answer into a team mention: nothing is posted', async () => {
    const { run, h } = await approvedRun([
      { id: 'ask', tool: 'ask_human', args: { question: 'Who should look?' } },
      { id: 'say', tool: 'github_comment', args: { repo: 'acme/api', number: 1, body: 'Please look, cc @{{steps.ask.output.answer}}' }, dependsOn: ['ask'] },
    ]);
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'acme/everyone' })).toBe('answered');
    await h.agent.idle();

    const say = (await db.store.listSteps(run.id)).find((step) => step.stepId === 'say');
    expect(say).toMatchObject({ status: 'failed', error: { code: MENTION_NOT_APPROVED } });
    expect(say?.error?.message).toContain('say.args.body: the body as filled in mentions @acme/everyone on GitHub, which the approved plan does not');
    expect(github.requests.filter((request) => request.method === 'POST')).toEqual([]);
  });

  it('keeps the mentions the approver read, and a tag with an @ filled in from a title, as written', async () => {
    const pull = github.addPull('acme/api', { title: '@acme/web@2.1.0', head: 'release' });
    await approvedRun([
      { id: 'get', tool: 'github_get_pull', args: { repo: 'acme/api', number: pull.number } },
      {
        id: 'ship',
        tool: 'github_create_release',
        args: { repo: 'acme/api', tag: '{{steps.get.output.title}}', body: '@alice please announce {{steps.get.output.title}}' },
        dependsOn: ['get'],
      },
    ]);

    const [release] = posted('/repos/acme/api/releases');
    expect(release?.tag_name).toBe('@acme/web@2.1.0');
    expect(notified(release!.body!)).toEqual(['@alice']);
  });
});

describe('GitHub mentions on the plan', () => {
  const planOf = (steps: Plan['steps']): Plan => ({ schemaVersion: 1, goal: 'Tell', confidence: 0.9, steps, rollback: [] });

  it('says whom a GitHub write’s own text will notify, and where an @ stands before a filled-in value', () => {
    const plan = planOf([
      { id: 's1', title: 'Ask', tool: 'ask_human', args: { question: 'Who?' }, dependsOn: [] },
      {
        id: 's2',
        title: 'Say',
        tool: 'github_comment',
        args: { repo: 'acme/api', number: 1, body: '@alice and @acme/ops: cc @{{steps.s1.output.answer}}' },
        dependsOn: ['s1'],
      },
      {
        id: 's3',
        title: 'File',
        tool: 'github_create_issue',
        args: { repo: 'acme/api', title: 'Mail ops@acme.dev', body: '{{steps.s1.output.answer}}' },
        dependsOn: ['s1'],
      },
    ]);
    expect(planFlags(plan)).toEqual([
      {
        where: 'step 2',
        flags: [
          'its body mentions @alice, @acme/ops on GitHub, who will be notified',
          'its body has an @ before a value filled in at run time; it may not mention anyone the plan does not',
        ],
      },
    ]);
  });
});
