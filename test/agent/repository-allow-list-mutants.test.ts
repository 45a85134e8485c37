/** Issue 37: TANDEM_REPOS as a table of tools and args, each refusal in the words a person reads. */
import { describe, expect, it } from 'vitest';
import { PlanSchema } from '../../src/agent/plan.ts';
import type { AnyTool } from '../../src/agent/ports/tool.ts';
import { checkPlanRepositories, isRepositoryAllowed, repositoryRefusal } from '../../src/agent/repository-allow-list.ts';
import { createGithubSearchIssuesTool } from '../../src/integrations/tools/github-search-issues.ts';
import { said } from '../helpers/words.ts';

type RepoTool = Pick<AnyTool, 'targets' | 'repositories'>;
const ALLOWED = ['acme/api', 'globex/*'];
const search = createGithubSearchIssuesTool(undefined);
const repoTarget: RepoTool = { targets: ['repo', 'number'] };
const judged = (tool: RepoTool | undefined, args: Record<string, unknown>) => {
  const refusal = repositoryRefusal(ALLOWED, tool, args);
  return refusal ? `${refusal.at}: ${said(refusal.reason)}` : 'allowed';
};

describe('a step judged against TANDEM_REPOS', () => {
  it.each([
    ['a repository on the list', repoTarget, { repo: 'acme/api', number: 1 }, 'allowed'],
    ['any repository of an owner on the list', repoTarget, { repo: 'Globex/web' }, 'allowed'],
    ['a repository off the list', repoTarget, { repo: 'evil/x' }, 'repo: evil/x is not on the allow-list: TANDEM_REPOS allows only acme/api, globex/*'],
    ['an owner alone', repoTarget, { repo: 'globex' }, 'allowed'],
    ['a repository filled in at run time (judged then)', repoTarget, { repo: '{{steps.s1.output.repo}}' }, 'allowed'],
    ['part of a repository filled in at run time', repoTarget, { repo: 'acme/{{steps.s1.output.name}}' }, 'allowed'],
    ['a repo arg that is not text', repoTarget, { repo: 42 }, 'allowed'],
    ['a repo arg that is not a target (content)', { targets: ['number'] }, { repo: 'evil/x', number: 1 }, 'allowed'],
    [
      'a tool that declares no targets: every arg counts',
      {},
      { repo: 'evil/x' },
      'repo: evil/x is not on the allow-list: TANDEM_REPOS allows only acme/api, globex/*',
    ],
    ['an unknown tool', undefined, { repo: 'evil/x' }, 'repo: evil/x is not on the allow-list: TANDEM_REPOS allows only acme/api, globex/*'],
    ['a search on listed repositories', search, { query: 'repo:acme/api org:globex is:open' }, 'allowed'],
    [
      'a search on every repository',
      search,
      { query: 'is:open' },
      'query: it reaches every repository, but TANDEM_REPOS allows only acme/api, globex/*; name the repository (repo:owner/name)',
    ],
    [
      'a search naming one listed and two other repositories',
      search,
      { query: 'repo:evil/x repo:acme/api org:initech' },
      'query: evil/x, initech/* are not on the allow-list: TANDEM_REPOS allows only acme/api, globex/*',
    ],
    ['a search whose query is filled in at run time', search, { query: 'repo:{{steps.s1.output.repo}}' }, 'allowed'],
    [
      'a tool that says what it reaches but names no target arg',
      { targets: [], repositories: () => ['evil/x'] },
      { anything: 1 },
      'args: evil/x is not on the allow-list: TANDEM_REPOS allows only acme/api, globex/*',
    ],
  ] as [string, RepoTool | undefined, Record<string, unknown>, string][])('%s', (_name, tool, args, expected) => {
    expect(judged(tool, args)).toBe(expected);
  });

  it('judges nothing when TANDEM_REPOS is unset', () => {
    expect(repositoryRefusal(undefined, repoTarget, { repo: 'evil/x' })).toBeNull();
    expect(repositoryRefusal(undefined, search, { query: 'is:open' })).toBeNull();
  });

  it('matches whole entries only', () => {
    expect(isRepositoryAllowed(['acme/api'], 'acme/api-evil')).toBe(false);
    expect(isRepositoryAllowed(['acme/api'], 'acme')).toBe(false);
    expect(isRepositoryAllowed(['acme/*'], 'ACME/anything')).toBe(true);
    expect(isRepositoryAllowed([], 'acme/api')).toBe(false);
  });
});

describe("a plan's steps against TANDEM_REPOS", () => {
  const plan = PlanSchema.parse({
    goal: 'g',
    confidence: 1,
    steps: [
      { id: 's1', title: 't', tool: 'write', args: { repo: 'acme/api' } },
      { id: 's2', title: 't', tool: 'write', args: { repo: 'evil/x' } },
    ],
    rollback: [{ id: 'r1', title: 't', tool: 'write', args: { repo: 'evil/y' } }],
  });
  const toolOf = () => repoTarget;

  it('gives one problem per step off the list, forward and rollback, at the arg that names it', () => {
    expect(checkPlanRepositories(plan, ALLOWED, toolOf).map((p) => `${p.code} ${p.at}: ${said(p.message)}`)).toEqual([
      'repo-not-allowed s2.args.repo: evil/x is not on the allow-list: TANDEM_REPOS allows only acme/api, globex/*',
      'repo-not-allowed r1.args.repo: evil/y is not on the allow-list: TANDEM_REPOS allows only acme/api, globex/*',
    ]);
    expect(checkPlanRepositories(plan, undefined, toolOf)).toEqual([]);
  });
});
