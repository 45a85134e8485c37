/**
 * CONTRACT §3: an arg whose whole value is one reference takes the referenced value "even where the tool
 * wants a number", and a person's answer (ask_human) is text. Every numeric and yes/no arg of the built-in
 * tools takes such an answer when it is plainly a number or true/false, and refuses any other text with
 * the step's usual invalid-args code before GitHub is asked. Real tools against the fake GitHub.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBuiltinTools } from '../../src/integrations/tools/builtin-tools.ts';
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
  github.addPull('acme/api', { title: 'First', head: 'one' });
  github.addPull('acme/api', { title: 'Second', head: 'two' });
});
afterEach(async () => {
  current?.llm.assertDone();
  expect(current?.errors ?? []).toEqual([]);
  current = undefined;
  await github.close();
});

function harness(steps: StepSketch[]): Harness {
  const tools = createBuiltinTools({ github: testGithub(github.url), slack: undefined, llm: undefined, httpAllow: [] });
  const llm = new ScriptedLlm().on('planner', plannerAnswer({ steps }));
  current = makeHarness({ store: db.store, tools, llm, settings: { autoRunReadOnly: true }, budgets: { maxReplans: 0 } });
  return current;
}

async function answer(h: Harness, run: { conversation: Harness['conversation'] }, text: string) {
  expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text })).toBe('answered');
  await h.agent.idle();
}

const stepsOf = async (runId: string) => new Map((await db.store.listSteps(runId)).map((step) => [step.stepId, step]));
const pullLists = () => github.requests.filter((request) => request.method === 'GET' && request.path === '/repos/acme/api/pulls');

describe('numbers and flags answered by a person', () => {
  it('a wait, a list limit and a release draft flag taken from ask_human answers run as numbers and a flag', async () => {
    const h = harness([
      { id: 'count', tool: 'ask_human', args: { question: 'How many pull requests, and how many seconds to wait?' } },
      { id: 'draft', tool: 'ask_human', args: { question: 'Draft release?' }, dependsOn: ['count'] },
      { id: 'pause', tool: 'wait', args: { seconds: '{{steps.count.output.answer}}' }, dependsOn: ['count'] },
      { id: 'list', tool: 'github_list_pulls', args: { repo: 'acme/api', limit: '{{steps.count.output.answer}}' }, dependsOn: ['pause'] },
      { id: 'release', tool: 'github_create_release', args: { repo: 'acme/api', tag: 'v1.0.0', draft: '{{steps.draft.output.answer}}' }, dependsOn: ['draft'] },
    ]);
    const run = await h.start();
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    await answer(h, run, '1');
    await answer(h, run, 'true');

    const steps = await stepsOf(run.id);
    expect(steps.get('pause')).toMatchObject({ status: 'succeeded', output: { waitedS: 1 } });
    expect(steps.get('list')).toMatchObject({ status: 'succeeded', output: { count: 1, more: true } });
    expect(steps.get('release')).toMatchObject({ status: 'succeeded', output: { draft: true } });
    expect(github.requests.find((request) => request.method === 'POST' && request.path === '/repos/acme/api/releases')?.body).toMatchObject({
      tag_name: 'v1.0.0',
      draft: true,
    });
    expect((await db.store.getRun(run.id))?.status).toBe('succeeded');
  });

  it('refuses an answer that is not plainly a number: the step fails with invalid-args and GitHub is not asked', async () => {
    const h = harness([
      { id: 'count', tool: 'ask_human', args: { question: 'How many pull requests?' } },
      { id: 'list', tool: 'github_list_pulls', args: { repo: 'acme/api', limit: '{{steps.count.output.answer}}' }, dependsOn: ['count'] },
    ]);
    const run = await h.start();
    await answer(h, run, '1e1');

    const list = (await stepsOf(run.id)).get('list');
    expect(list).toMatchObject({ status: 'failed', error: { code: 'invalid-args' } });
    expect(list?.error?.message).toContain('list.args.limit: expected a number from 1 to 100 (digits only)');
    expect(pullLists()).toEqual([]);
  });

  it('refuses a yes/no answer that is not true or false, and a number past the arg’s own bound', async () => {
    const h = harness([
      { id: 'answer', tool: 'ask_human', args: { question: 'Draft? How many?' } },
      {
        id: 'release',
        tool: 'github_create_release',
        args: { repo: 'acme/api', tag: 'v2', prerelease: '{{steps.answer.output.answer}}' },
        dependsOn: ['answer'],
      },
      { id: 'list', tool: 'github_list_pulls', args: { repo: 'acme/api', limit: '{{steps.answer.output.answer}}' }, dependsOn: ['answer'] },
    ]);
    const run = await h.start();
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    await answer(h, run, '500');

    const steps = await stepsOf(run.id);
    expect(steps.get('release')).toMatchObject({ status: 'failed', error: { code: 'invalid-args' } });
    expect(steps.get('release')?.error?.message).toContain('release.args.prerelease: expected true or false');
    expect(steps.get('list')).toMatchObject({ status: 'failed', error: { code: 'invalid-args' } });
    expect(steps.get('list')?.error?.message).toContain('list.args.limit: Too big');
    expect(github.requests.filter((request) => request.method === 'POST')).toEqual([]);
    expect(pullLists()).toEqual([]);
  });
});

describe('every numeric and yes/no arg of the built-in tools', () => {
  const builtins = createBuiltinTools({ github: undefined, slack: undefined, llm: undefined, httpAllow: [] });
  const scalarArgs = builtins.flatMap((tool) => {
    const shape = (tool.input as unknown as { shape?: Record<string, { safeParse(value: unknown): { success: boolean } }> }).shape ?? {};
    return Object.entries(shape)
      .filter(([, arg]) => [1, 200, true].some((value) => arg.safeParse(value).success))
      .filter(([name]) => !['workflow', 'inputs'].includes(name)) // a workflow is a file name or an id; inputs are the workflow's own
      .map(([name, arg]) => ({ at: `${tool.name}.${name}`, arg }));
  });

  it('takes the value as a person writes it (digits or true/false as text), and refuses other text', () => {
    expect(scalarArgs.map((entry) => entry.at).sort()).toEqual(
      [
        'agent_task.maxCalls',
        'github_comment.number',
        'github_create_release.draft',
        'github_create_release.prerelease',
        'github_dispatch_workflow.timeoutS',
        'github_dispatch_workflow.wait',
        'github_get_pull.number',
        'github_get_workflow_run.runId',
        'github_list_pulls.limit',
        'github_list_workflow_runs.limit',
        'github_merge_pull.number',
        'github_search_issues.limit',
        'http_check.expectStatus',
        'http_check.timeoutMs',
        'wait.seconds',
        'github_add_labels.number',
      ].sort(),
    );
    for (const { at, arg } of scalarArgs) {
      const flag = arg.safeParse(true).success;
      const asText = flag ? 'false' : at.startsWith('http_check') ? '200' : '5';
      expect(arg.safeParse(asText).success, at).toBe(true);
      expect(arg.safeParse(flag ? 'yes' : 'five').success, at).toBe(false);
    }
  });
});
