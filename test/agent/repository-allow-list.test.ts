/**
 * TANDEM_REPOS as the planner, a person editing a plan, and the executor meet it: a plan or edit with a
 * step (forward or rollback) on another repository is invalid with the reason, and a repository filled
 * in at run time is judged before its step runs.
 */
import fc from 'fast-check';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { makePlan } from '../../src/agent/planning/planner.ts';
import { isRepositoryAllowed, REPO_NOT_ALLOWED, repositoryRefusal } from '../../src/agent/model/repository-allow-list.ts';
import { createToolRegistry } from '../../src/agent/model/tool-registry.ts';
import { createGithubSearchIssuesTool } from '../../src/integrations/tools/github/github-search-issues.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { fakeTool, standardTools, type FakeTool } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';
import { said } from '../helpers/words.ts';

const ALLOWED = ['acme/api', 'globex/*'];

/** A GitHub-shaped write: its `repo` arg is a target, as the real GitHub tools declare. */
function repoTool(name: string, risk: 'read' | 'write'): FakeTool {
  const tool = fakeTool({ name, risk, input: z.object({ repo: z.string(), title: z.string().optional() }) });
  return Object.assign(tool, { targets: ['repo'] as const });
}

describe('which repositories are allowed', () => {
  it('matches owner/name and owner/* whatever the case, and nothing else', () => {
    const ownerPart = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,8}$/);
    const part = fc.stringMatching(/^[a-z0-9][a-z0-9_.-]{0,8}$/);
    const flipCase = (text: string, mask: number) => [...text].map((c, i) => ((mask >> (i % 30)) & 1 ? c.toUpperCase() : c)).join('');
    fc.assert(
      fc.property(ownerPart, part, ownerPart, fc.integer({ min: 0, max: 2 ** 30 }), (owner, name, other, mask) => {
        expect(isRepositoryAllowed([`${owner}/${name}`], flipCase(`${owner}/${name}`, mask))).toBe(true);
        expect(isRepositoryAllowed([`${owner}/*`], flipCase(`${owner}/${other}`, mask))).toBe(true);
        if (other !== name) expect(isRepositoryAllowed([`${owner}/${name}`], `${owner}/${other}`)).toBe(false);
        if (other !== owner) expect(isRepositoryAllowed([`${owner}/*`], `${other}/${name}`)).toBe(false);
      }),
    );
  });
});

describe('values judged as they are', () => {
  const search = createGithubSearchIssuesTool(undefined);
  const repoArg = repoTool('github_create_issue', 'write');
  const judged = (tool: Parameters<typeof repositoryRefusal>[1], args: Record<string, unknown>, stage: 'planned' | 'filled') => {
    const refusal = repositoryRefusal(['acme/*'], tool, args, stage);
    return refusal ? `${refusal.at}: ${said(refusal.reason)}` : null;
  };

  it('waits for a planned reference, but judges a filled value holding the same text literally', () => {
    expect(judged(repoArg, { repo: '{{steps.s1.output.text}}' }, 'planned')).toBeNull();
    expect(judged(repoArg, { repo: '{{steps.s1.output.text}}' }, 'filled')).toBe(
      'repo: "{{steps.s1.output.text}}" is not a repository GitHub accepts: expected owner/name, e.g. acme/api',
    );
    expect(judged(repoArg, { repo: 'evil/x{{steps.s1.output.text}}' }, 'filled')).toMatch(/^repo: "evil\/x\{\{steps.*is not a repository GitHub accepts/);
    expect(judged(search, { query: 'repo:evil/secret is:issue {{steps.s1.output.text}}' }, 'filled')).toMatch(/^query: evil\/secret is not on the allow-list/);
    expect(judged(search, { query: 'repo:acme/api {{steps.s1.output.text}}' }, 'filled')).toBeNull();
  });

  it('judges the words of a planned search around a reference that stands alone, and waits for the rest', () => {
    expect(judged(search, { query: 'repo:evil/secret is:issue {{steps.s1.output.text}}' }, 'planned')).toMatch(/^query: evil\/secret is not on the allow-list/);
    expect(judged(search, { query: 'is:open {{steps.s1.output.text}}' }, 'planned')).toBeNull();
    expect(judged(search, { query: 'repo:{{steps.s1.output.repo}} is:open' }, 'planned')).toBeNull();
    expect(judged(search, { query: 'repo:acme/api OR {{steps.s1.output.text}}' }, 'planned')).toBeNull();
  });

  it('never allows a name GitHub would refuse, whatever the list says', () => {
    for (const name of [
      'acme/..',
      'acme/.',
      '-acme/api',
      'ac_me/api',
      'acme/api/x',
      'acme/',
      'acme',
      'acme/*/x',
      '/*',
      `acme/${'a'.repeat(101)}`,
      `${'a'.repeat(40)}/api`,
    ]) {
      expect(isRepositoryAllowed(['acme/*', name.toLowerCase()], name)).toBe(false);
    }
    expect(isRepositoryAllowed(['acme/*'], 'acme/.github')).toBe(true);
    // A whole account is reached only as itself (an org: search), never through a longer path.
    expect(isRepositoryAllowed(['acme/*'], 'acme/*')).toBe(true);
    expect(isRepositoryAllowed(['globex/*'], 'acme/*')).toBe(false);
  });
});

describe('the planner', () => {
  let llm: ScriptedLlm;
  afterEach(() => llm.assertDone());

  it('gets a plan on another repository back in its repair round with the reason, and keeps the fixed one', async () => {
    const tools = createToolRegistry([repoTool('github_create_issue', 'write'), createGithubSearchIssuesTool(undefined)]);
    const offList = plannerAnswer({
      steps: [
        { id: 's1', tool: 'github_search_issues', args: { query: 'is:open label:bug' } },
        { id: 's2', tool: 'github_create_issue', args: { repo: 'victim-org/prod', title: 'x' } },
      ],
      rollback: [{ id: 'r1', tool: 'github_create_issue', args: { repo: 'Victim-Org/Other', title: 'undo' } }],
    });
    const fixed = plannerAnswer({
      steps: [
        { id: 's1', tool: 'github_search_issues', args: { query: 'repo:acme/api org:globex is:open' } },
        { id: 's2', tool: 'github_create_issue', args: { repo: 'ACME/api', title: 'x' } },
      ],
    });
    llm = new ScriptedLlm().on('planner', offList).on('planner', fixed);

    const result = await makePlan({ llm, tools, maxSteps: 5, secrets: [], repositories: ALLOWED }, { task: 't', requester: 'U1' });

    expect(result.ok).toBe(true);
    expect(llm.prompts()[0]).toContain(
      'Only these GitHub repositories may be used (owner/* is any repository of that owner); a search must name them with repo: qualifiers: acme/api, globex/*',
    );
    const repair = String(llm.calls[1]!.messages.at(-1)!.content);
    // The model reads settings by their role; people read their variable (below, the modal).
    expect(repair).toContain(
      's1.args.query: it reaches every repository, but the repository allow-list allows only acme/api, globex/*; name the repository (repo:owner/name)',
    );
    expect(repair).toContain('s2.args.repo: victim-org/prod is not on the allow-list: the repository allow-list allows only acme/api, globex/*');
    expect(repair).toContain('r1.args.repo: Victim-Org/Other is not on the allow-list');
  });

  it('is not limited when TANDEM_REPOS is unset', async () => {
    const tools = createToolRegistry([repoTool('github_create_issue', 'write')]);
    llm = new ScriptedLlm().on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'github_create_issue', args: { repo: 'anyone/anything', title: 'x' } }] }));
    expect((await makePlan({ llm, tools, maxSteps: 5, secrets: [] }, { task: 't', requester: 'U1' })).ok).toBe(true);
  });
});

describe('runs under TANDEM_REPOS', () => {
  const db = useMemoryStore();
  let h: Harness;
  afterEach(() => {
    h.llm.assertDone();
    expect(h.errors).toEqual([]);
  });

  it("refuses a person's edit that adds a step on another repository, with the reason for the modal", async () => {
    const tools = [repoTool('github_create_issue', 'write')];
    const llm = new ScriptedLlm().on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'github_create_issue', args: { repo: 'acme/api', title: 'x' } }] }));
    h = makeHarness({ store: db.store, tools, llm, settings: { repositories: ALLOWED } });
    const run = await h.start('file it', 'UREQ');
    const v1 = (await h.store.getPlanVersion(run.id, 1))!.plan;
    const edited = { ...v1, rollback: [{ id: 'r1', title: 'undo', tool: 'github_create_issue', args: { repo: 'globex-evil/web', title: 'y' } }] };

    const checked = await h.agent.checkEdit({ runId: run.id, planVersion: 1, plan: edited });
    expect(checked.ok ? [] : checked.error.map((problem) => problem.code)).toEqual(['repo-not-allowed']);
    expect(checked.ok ? [] : checked.error.map((problem) => said(problem.message))).toEqual([
      'r1.args.repo: globex-evil/web is not on the allow-list: TANDEM_REPOS allows only acme/api, globex/*',
    ]);
    expect((await h.agent.editPlan({ runId: run.id, planVersion: 1, userId: 'UREQ', plan: edited })).ok).toBe(false);
    expect(await h.store.listPlanVersions(run.id)).toHaveLength(1);
  });

  it('fails a step whose repository, filled in at run time, is off the list: the tool is never called and a person is asked', async () => {
    const { read } = standardTools();
    const write = repoTool('github_create_issue', 'write');
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({
        steps: [
          { id: 's1', tool: 'read_thing', args: { key: 'victim-org/prod' } },
          { id: 's2', tool: 'github_create_issue', args: { repo: '{{steps.s1.output.echo.key}}', title: 'x' }, dependsOn: ['s1'] },
        ],
      }),
    );
    h = makeHarness({ store: db.store, tools: [read, write], llm, settings: { repositories: ALLOWED } });
    const run = await h.start('file it where s1 says', 'UREQ');
    expect((await h.store.getRun(run.id))?.status).toBe('awaiting-approval');
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();

    expect(read.calls).toHaveLength(1);
    expect(write.calls).toHaveLength(0);
    const s2 = (await h.store.listSteps(run.id)).find((step) => step.stepId === 's2')!;
    expect(s2.status).toBe('failed');
    expect(s2.error).toMatchObject({ code: REPO_NOT_ALLOWED, message: expect.stringContaining('s2.args.repo: victim-org/prod is not on the allow-list') });
    const [escalation] = await h.store.listEscalations(run.id);
    expect(escalation).toMatchObject({
      status: 'open',
      stepId: 's2',
      message: expect.stringMatching(/was not run: .*victim-org\/prod is not on the allow-list/),
    });
  });
});
