/**
 * github_compare reads refs of `repo`, but GitHub also takes a cross-fork base or head (`user:branch`,
 * `owner:repo:branch`), which reads another repository. With TANDEM_REPOS set, a `:` in base or head is
 * refused on the plan, and, filled in at run time, before the step runs. Real tools, fake GitHub.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_NOT_ALLOWED, repositoryRefusal } from '../../src/agent/model/repository-allow-list.ts';
import { validatePlan } from '../../src/agent/model/plan/plan-validation.ts';
import { createToolRegistry } from '../../src/agent/model/tool-registry.ts';
import { createBuiltinTools } from '../../src/integrations/tools/builtin-tools.ts';
import { makeHarness, type Harness } from '../agent/support/harness.ts';
import { ScriptedLlm, plannerAnswer, type StepSketch } from '../agent/support/scripted-llm.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { said } from '../helpers/words.ts';
import { testGithub } from './tool-context.ts';

const db = useMemoryStore();
let github: FakeGithub;

beforeEach(async () => {
  github = await startFakeGithub();
  github.addRepo('acme/api');
});
afterEach(() => github.close());

const builtins = () => createBuiltinTools({ github: testGithub(github.url), slack: undefined, llm: undefined, httpAllow: [] });
const compares = () => github.requests.filter((request) => request.path.includes('/compare/'));

const planOf = (steps: StepSketch[]) => ({
  goal: 'Compare',
  confidence: 0.9,
  steps: steps.map((step) => ({ title: step.id, dependsOn: [], ...step })),
});

describe('github_compare under TANDEM_REPOS', () => {
  const registry = () => createToolRegistry(builtins());
  const check = (base: string, head: string, repositories: readonly string[] | 'unset' = ['acme/*']) =>
    validatePlan(planOf([{ id: 's1', tool: 'github_compare', args: { repo: 'acme/api', base, head } }]), registry(), {
      maxSteps: 20,
      repositories: repositories === 'unset' ? undefined : repositories,
    });

  it('refuses a plan whose base or head is a branch of another repository, and says why', () => {
    for (const [base, head] of [
      ['main', 'evil:main'],
      ['evil:secret:main', 'main'],
    ] as const) {
      const checked = check(base, head);
      expect(checked.ok, `${base}...${head}`).toBe(false);
      if (checked.ok) continue;
      expect(checked.error).toMatchObject([{ code: REPO_NOT_ALLOWED, at: 's1.args.repo' }]);
      expect(said(checked.error[0]!.message)).toContain("names a ref of another repository (GitHub's cross-fork user:branch or owner:repo:branch form)");
    }
  });

  it('judges what was sent the same way, as `tandem audit` reads a step’s executed args', () => {
    const compare = registry().get('github_compare');
    expect(repositoryRefusal(['acme/*'], compare, { repo: 'acme/api', base: 'main', head: 'evil:main' }, 'filled')).not.toBeNull();
    expect(repositoryRefusal(['acme/*'], compare, { repo: 'acme/api', base: 'main', head: 'v2' }, 'filled')).toBeNull();
  });

  it('keeps plain refs, and every ref when TANDEM_REPOS is unset', () => {
    expect(check('v1.2.0', 'main').ok).toBe(true);
    expect(check('main', 'evil:main', 'unset').ok).toBe(true);
  });

  it('fails the step when the head filled in from an answer is another repository’s branch; GitHub is never asked', async () => {
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({
        steps: [
          { id: 'ask', tool: 'ask_human', args: { question: 'Which branch?' } },
          { id: 'diff', tool: 'github_compare', args: { repo: 'acme/api', base: 'main', head: '{{steps.ask.output.answer}}' }, dependsOn: ['ask'] },
        ],
      }),
    );
    const h: Harness = makeHarness({
      store: db.store,
      tools: builtins(),
      llm,
      settings: { autoRunReadOnly: true, repositories: ['acme/*'] },
      budgets: { maxReplans: 0 },
    });
    const run = await h.start();
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'evil:main' })).toBe('answered');
    await h.agent.idle();

    const diff = (await db.store.listSteps(run.id)).find((step) => step.stepId === 'diff');
    expect(diff).toMatchObject({ status: 'failed', error: { code: REPO_NOT_ALLOWED } });
    expect(said(diff!.error!.message)).toContain('head "evil:main" names a ref of another repository');
    expect(compares()).toEqual([]);
    h.llm.assertDone();
    expect(h.errors).toEqual([]);
  });
});
