/**
 * The answer a GitHub read gives in the summary (contract §5: "the results a person asked for (a read's
 * answer, with a link to the rest)"; github_get_pull "includes mergeability and check status"), from
 * outputs shaped as the tools store them (src/integrations/tools/github/*).
 */
import { describe, expect, it } from 'vitest';
import { LIST_ITEMS, stepResult } from '../../src/agent/model/step-results.ts';

const WEB = 'https://github.example';
const result = (tool: string, output: Record<string, unknown>, args: Record<string, unknown> = {}) =>
  stepResult({ tool, title: 'The step', args, output, risk: 'read' });

const pull = (more: Record<string, unknown>) => ({
  number: 7,
  url: `${WEB}/acme/api/pull/7`,
  title: 'Fix thing',
  state: 'open',
  merged: false,
  draft: false,
  mergeable: true,
  mergeableState: 'clean',
  checks: { state: 'success', total: 3, failed: [], pending: [] },
  readyToMerge: true,
  ...more,
});

const run = (id: number, conclusion: string | null, status = 'completed') => ({
  runId: id,
  url: `${WEB}/acme/api/actions/runs/${id}`,
  name: 'CI',
  status,
  conclusion,
  branch: 'main',
  runNumber: id - 100,
});

describe('GitHub reads, answered', () => {
  it('a pull request says whether it can be merged and how its checks went', () => {
    expect(result('github_get_pull', pull({}))).toEqual({
      kind: 'answer',
      text: 'acme/api#7 “Fix thing” is open; can be merged; checks passed (3) — ready to merge',
      link: { label: 'acme/api#7', url: `${WEB}/acme/api/pull/7` },
    });
    const blocked = pull({
      mergeable: false,
      mergeableState: 'dirty',
      checks: { state: 'failure', total: 2, failed: ['ci/test'], pending: [] },
      readyToMerge: false,
    });
    expect(result('github_get_pull', blocked)?.text).toBe('acme/api#7 “Fix thing” is open; cannot be merged (dirty); checks failed: ci/test');
    const computing = pull({ mergeable: null, checks: { state: 'pending', total: 1, failed: [], pending: ['build'] }, readyToMerge: false });
    expect(result('github_get_pull', computing)?.text).toBe(
      'acme/api#7 “Fix thing” is open; GitHub is still working out whether it can be merged; checks still running: build',
    );
    expect(result('github_get_pull', pull({ merged: true, state: 'closed' }))?.text).toBe('acme/api#7 “Fix thing” is merged');
  });

  it('workflow runs: the newest with their state, all of them counted, and the Actions page for the rest', () => {
    const runs = Array.from({ length: 8 }, (_, i) => run(200 - i, i === 0 ? null : 'success', i === 0 ? 'in_progress' : 'completed'));
    const found = result('github_list_workflow_runs', { repo: 'acme/api', totalCount: 40, runs }, { repo: 'acme/api', workflow: 'ci.yml' });
    expect(found).toMatchObject({
      kind: 'answer',
      text: '40 workflow runs of ci.yml in acme/api',
      total: 40,
      rest: `${WEB}/acme/api/actions/workflows/ci.yml`,
    });
    expect(found?.items).toHaveLength(LIST_ITEMS);
    expect(found?.items?.[0]).toEqual({ label: 'CI #100 on main is in progress', url: `${WEB}/acme/api/actions/runs/200` });
    expect(found?.items?.[1]?.label).toBe('CI #99 on main concluded success');
    expect(result('github_list_workflow_runs', { repo: 'acme/api', totalCount: 0, runs: [] })).toMatchObject({
      text: '0 workflow runs in acme/api',
      rest: null,
    });
  });

  it('one workflow run: its conclusion, or its status while it runs', () => {
    expect(result('github_get_workflow_run', run(150, 'failure'))).toEqual({
      kind: 'answer',
      text: 'CI #50 on main concluded failure',
      link: { label: 'acme/api workflow run', url: `${WEB}/acme/api/actions/runs/150` },
    });
    expect(result('github_get_workflow_run', run(151, null, 'queued'))?.text).toBe('CI #51 on main is queued');
  });

  it('a comparison: ahead and behind, files changed, the newest commits and the comparison for the rest', () => {
    const commits = Array.from({ length: 9 }, (_, i) => ({
      sha: `abcdef${i}9999`,
      message: `Commit ${i}`,
      author: 'dev',
      url: `${WEB}/acme/api/commit/abcdef${i}`,
    }));
    const url = `${WEB}/acme/api/compare/v1.2.0...main`;
    const output = {
      url,
      status: 'ahead',
      aheadBy: 9,
      behindBy: 1,
      totalCommits: 9,
      commits,
      files: [{ filename: 'a.ts', status: 'modified', additions: 1, deletions: 0 }],
      filesTruncated: false,
    };
    const found = result('github_compare', output, { repo: 'acme/api', base: 'v1.2.0', head: 'main' });
    expect(found).toMatchObject({ text: 'main is 9 commits ahead of v1.2.0 and 1 behind, 1 file changed', total: 9, rest: url });
    expect(found?.items?.[0]).toEqual({ label: 'abcdef8 Commit 8', url: `${WEB}/acme/api/commit/abcdef8` });
    // Refs filled in at run time are named from the comparison's address, never as a reference.
    expect(result('github_compare', output, { repo: 'acme/api', base: '{{steps.s1.output.tag}}', head: 'main' })?.text).toMatch(
      /^main is 9 commits ahead of v1\.2\.0/,
    );
    expect(result('github_compare', { ...output, status: 'identical', aheadBy: 0, behindBy: 0 }, { base: 'a', head: 'b' })?.text).toBe('b and a are identical');
  });

  it('a repository: visibility, default branch, archived, open issues and the last push', () => {
    const output = {
      url: `${WEB}/acme/api`,
      fullName: 'acme/api',
      description: 'api service',
      defaultBranch: 'main',
      private: true,
      archived: false,
      openIssues: 4,
      pushedAt: '2026-01-01T00:00:00Z',
    };
    expect(result('github_get_repo', output)).toEqual({
      kind: 'answer',
      text: 'acme/api: private, default branch main, 4 open issues and pull requests, last push 2026-01-01 — “api service”',
      link: { label: 'github.example/acme/api', url: `${WEB}/acme/api` },
    });
  });
});
