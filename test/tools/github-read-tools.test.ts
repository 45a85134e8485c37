import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyTool } from '../../src/agent/ports/tool.ts';
import { createBuiltinTools } from '../../src/integrations/tools/builtin-tools.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github-server.ts';
import { errorOf, okOutput, runTool, testGithub } from './tool-context.ts';
import { stepResult } from '../../src/agent/model/step-results.ts';

let github: FakeGithub;
let tools: Map<string, AnyTool>;

beforeAll(async () => {
  github = await startFakeGithub();
  const repo = github.addRepo('acme/api');
  github.addIssue('acme/api', { title: 'Login fails on Safari', labels: ['bug'] });
  github.addPull('acme/api', { title: 'Ready change', head: 'feat/ready', headSha: 'sha-ready' });
  github.addPull('acme/api', { title: 'Red CI', head: 'feat/red', headSha: 'sha-red' });
  github.addPull('acme/api', { title: 'Conflicting', head: 'feat/conflict', headSha: 'sha-conflict', mergeable: false, mergeableState: 'dirty' });
  repo.checkRuns.set('sha-ready', [{ name: 'build', status: 'completed', conclusion: 'success' }]);
  repo.statuses.set('sha-ready', [{ context: 'ci/legacy', state: 'success' }]);
  repo.checkRuns.set('sha-red', [
    { name: 'build', status: 'completed', conclusion: 'success' },
    { name: 'test', status: 'completed', conclusion: 'failure' },
  ]);
  repo.statuses.set('sha-red', [{ context: 'deploy/preview', state: 'pending' }]);
  repo.comparisons.set('v1.0.0...main', {
    commits: [{ sha: 'c1', message: 'Fix login\n\nlong body', author: 'dev' }],
    files: [{ filename: 'src/login.ts', status: 'modified', additions: 3, deletions: 1 }],
  });
  github.addWorkflow('acme/api', { path: '.github/workflows/deploy.yml' });
  tools = new Map(createBuiltinTools({ github: testGithub(github.url), slack: undefined, llm: undefined, httpAllow: [] }).map((t) => [t.name, t]));
});
afterAll(() => github.close());

const tool = (name: string) => tools.get(name)!;

describe('GitHub read tools', () => {
  it('github_get_repo returns the web url and default branch', async () => {
    const output = okOutput(await runTool(tool('github_get_repo'), { repo: 'acme/api' }));
    expect(output).toMatchObject({ url: 'https://github.example/acme/api', defaultBranch: 'main', fullName: 'acme/api' });
  });

  it('github_list_pulls lists open pulls with number and url', async () => {
    const output = okOutput(await runTool(tool('github_list_pulls'), { repo: 'acme/api', limit: 2 }));
    const pulls = output['pulls'] as { number: number; url: string }[];
    expect(pulls).toHaveLength(2);
    for (const pull of pulls) expect(pull.url).toBe(`https://github.example/acme/api/pull/${pull.number}`);
  });

  it('github_list_pulls says when the limit cut the list, and the summary does not take the page for the count', async () => {
    const cut = okOutput(await runTool(tool('github_list_pulls'), { repo: 'acme/api', limit: 2 }));
    expect(cut).toMatchObject({ count: 2, more: true });
    expect(stepResult({ tool: 'github_list_pulls', title: 'List', args: { repo: 'acme/api', limit: 2 }, output: cut })).toMatchObject({
      text: 'The 2 newest open pull requests in acme/api',
      link: { url: 'https://github.example/acme/api/pulls?q=is%3Apr%20is%3Aopen' },
    });
    const whole = okOutput(await runTool(tool('github_list_pulls'), { repo: 'acme/api', limit: 3 }));
    expect(whole).toMatchObject({ count: 3, more: false });
    expect(stepResult({ tool: 'github_list_pulls', title: 'List', args: { repo: 'acme/api' }, output: whole })).toMatchObject({
      text: '3 open pull requests in acme/api',
      total: 3,
    });
    const into = okOutput(await runTool(tool('github_list_pulls'), { repo: 'acme/api', state: 'all', base: 'main', limit: 1 }));
    expect(stepResult({ tool: 'github_list_pulls', title: 'List', args: {}, output: into })).toMatchObject({
      text: 'The newest pull request in acme/api into main',
      link: { url: 'https://github.example/acme/api/pulls?q=is%3Apr%20base%3Amain' },
    });
  });

  it('github_get_pull combines mergeability with check runs and statuses', async () => {
    const ready = okOutput(await runTool(tool('github_get_pull'), { repo: 'acme/api', number: 2 }));
    expect(ready).toMatchObject({
      number: 2,
      url: 'https://github.example/acme/api/pull/2',
      mergeable: true,
      readyToMerge: true,
      checks: { state: 'success', total: 2 },
    });

    const red = okOutput(await runTool(tool('github_get_pull'), { repo: 'acme/api', number: 3 }));
    expect(red).toMatchObject({ readyToMerge: false, checks: { state: 'failure', failed: ['test'], pending: ['deploy/preview'] } });

    const conflicting = okOutput(await runTool(tool('github_get_pull'), { repo: 'acme/api', number: 4 }));
    expect(conflicting).toMatchObject({ mergeable: false, mergeableState: 'dirty', readyToMerge: false, checks: { state: 'none' } });
  });

  it('github_get_pull reads a pull whose checks GitHub will not show, and says which', async () => {
    // A token without the checks permission (403), a server without the checks API (404): the pull is still read.
    github.fault({ method: 'GET', path: /\/check-runs$/, status: 403, body: { message: 'Resource not accessible by integration' } });
    const noRuns = okOutput(await runTool(tool('github_get_pull'), { repo: 'acme/api', number: 3 }));
    expect(noRuns).toMatchObject({ number: 3, checks: { state: 'pending', total: 1, pending: ['deploy/preview'], unreadable: ['check runs'] } });
    github.fault({ method: 'GET', path: /\/check-runs$/, status: 404, body: { message: 'Not Found' } });
    github.fault({ method: 'GET', path: /\/status$/, status: 404, body: { message: 'Not Found' } });
    const neither = okOutput(await runTool(tool('github_get_pull'), { repo: 'acme/api', number: 2 }));
    // Checks it could not read: ready only on GitHub's own word that required checks passed (mergeable_state clean).
    expect(neither).toMatchObject({
      readyToMerge: true,
      mergeableState: 'clean',
      checks: { state: 'none', total: 0, unreadable: ['check runs', 'commit statuses'] },
    });
    const unstable = github.addPull('acme/api', { title: 'Unread checks', head: 'feat/unread', headSha: 'sha-unread', mergeableState: 'unstable' });
    github.fault({ method: 'GET', path: /\/check-runs$/, status: 403, body: { message: 'Resource not accessible by integration' } });
    const unread = okOutput(await runTool(tool('github_get_pull'), { repo: 'acme/api', number: unstable.number }));
    expect(unread).toMatchObject({ readyToMerge: false, checks: { state: 'none', unreadable: ['check runs'] } });
    // Another failure of the checks API is still a failure of the read.
    github.fault({ method: 'GET', path: /\/check-runs$/, status: 422, body: { message: 'No commit found for SHA' } });
    expect(errorOf(await runTool(tool('github_get_pull'), { repo: 'acme/api', number: 2 })).message).toContain('No commit found');
  });

  it('github_get_pull on a missing pull says what was not found', async () => {
    const error = errorOf(await runTool(tool('github_get_pull'), { repo: 'acme/api', number: 99 }));
    expect(error.message).toBe('not found: acme/api#99');
    expect(error.transient).toBeFalsy();
  });

  it('github_compare summarises commits and files with the compare url', async () => {
    const output = okOutput(await runTool(tool('github_compare'), { repo: 'acme/api', base: 'v1.0.0', head: 'main' }));
    expect(output).toMatchObject({
      url: 'https://github.example/acme/api/compare/v1.0.0...main',
      aheadBy: 1,
      commits: [{ sha: 'c1', message: 'Fix login' }],
      files: [{ filename: 'src/login.ts' }],
    });
  });

  it('github_search_issues finds issues by qualifiers and text, each with number and url', async () => {
    const output = okOutput(await runTool(tool('github_search_issues'), { query: 'repo:acme/api is:issue label:bug safari' }));
    expect(output['items']).toEqual([
      expect.objectContaining({ number: 1, url: 'https://github.example/acme/api/issues/1', repo: 'acme/api', isPull: false, labels: ['bug'] }),
    ]);
  });

  it('github_list_workflow_runs and github_get_workflow_run report runs with runId and url', async () => {
    const dispatch = tool('github_dispatch_workflow');
    const started = okOutput(await runTool(dispatch, { repo: 'acme/api', workflow: 'deploy.yml', ref: 'main', wait: false }));
    const listed = okOutput(await runTool(tool('github_list_workflow_runs'), { repo: 'acme/api', workflow: 'deploy.yml' }));
    expect(listed['runs']).toEqual([expect.objectContaining({ runId: started['runId'], url: started['url'], branch: 'main', event: 'workflow_dispatch' })]);
    const one = okOutput(await runTool(tool('github_get_workflow_run'), { repo: 'acme/api', runId: started['runId'] }));
    expect(one).toMatchObject({ runId: started['runId'], url: `https://github.example/acme/api/actions/runs/${String(started['runId'])}` });
  });

  it('every GitHub tool says so plainly when no token is configured', async () => {
    const without = createBuiltinTools({ github: undefined, slack: undefined, llm: undefined, httpAllow: [] });
    const getRepo = without.find((t) => t.name === 'github_get_repo')!;
    expect(errorOf(await runTool(getRepo, { repo: 'acme/api' })).message).toBe('GITHUB_TOKEN is not configured');
  });

  it('accepts a pull number filled in from an earlier step as text', async () => {
    expect(okOutput(await runTool(tool('github_get_pull'), { repo: 'acme/api', number: '2' }))['number']).toBe(2);
  });

  it('rejects a repo argument that is not owner/name before anything is sent', () => {
    expect(tool('github_get_repo').input.safeParse({ repo: 'just-a-name' }).success).toBe(false);
  });
});
