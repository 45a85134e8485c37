/**
 * What a fake tool answers when the golden task gives no canned output: the real tool's output shape
 * (README: Tools), filled from the call's args, so references like {{steps.s1.output.number}} resolve.
 */
type Args = Record<string, unknown>;
type Output = Record<string, unknown>;

const GITHUB = 'https://github.com';

const repoUrl = (args: Args) => `${GITHUB}/${String(args.repo ?? 'acme/api')}`;

const DEFAULTS: Record<string, (args: Args, call: number) => Output> = {
  github_get_repo: (a) => ({ repo: a.repo, url: repoUrl(a), defaultBranch: 'main', private: false, archived: false, openIssues: 4 }),
  github_list_pulls: (a) => ({ repo: a.repo, count: 0, pulls: [] }),
  github_get_pull: (a) => ({
    number: a.number,
    url: `${repoUrl(a)}/pull/${String(a.number)}`,
    title: 'Pull request',
    body: '',
    state: 'open',
    merged: false,
    draft: false,
    mergeable: true,
    checks: { state: 'success', total: 3, failing: [] },
    readyToMerge: true,
  }),
  github_list_workflow_runs: (a) => ({ repo: a.repo, totalCount: 0, runs: [] }),
  github_get_workflow_run: (a) => ({ runId: a.runId, url: `${repoUrl(a)}/actions/runs/${String(a.runId)}`, status: 'completed', conclusion: 'success' }),
  github_compare: (a) => ({ url: `${repoUrl(a)}/compare/${String(a.base)}...${String(a.head)}`, status: 'ahead', aheadBy: 0, behindBy: 0, totalCommits: 0, commits: [], files: [], filesTruncated: false }),
  github_search_issues: (a) => ({ query: a.query, totalCount: 0, incomplete: false, items: [] }),
  github_create_issue: (a, n) => ({ number: 500 + n, url: `${repoUrl(a)}/issues/${500 + n}`, title: a.title }),
  github_comment: (a, n) => ({ number: a.number, commentId: 9000 + n, url: `${repoUrl(a)}/issues/${String(a.number)}#issuecomment-${9000 + n}` }),
  github_add_labels: (a) => ({ number: a.number, url: `${repoUrl(a)}/issues/${String(a.number)}`, labels: a.labels }),
  github_create_release: (a, n) => ({ releaseId: 7000 + n, url: `${repoUrl(a)}/releases/tag/${String(a.tag)}`, tag: a.tag, draft: a.draft ?? false }),
  github_dispatch_workflow: (a, n) => ({ runId: 40_000 + n, url: `${repoUrl(a)}/actions/runs/${40_000 + n}`, status: 'completed', conclusion: 'success' }),
  github_merge_pull: (a) => ({ number: a.number, url: `${repoUrl(a)}/pull/${String(a.number)}`, merged: true, sha: '3f9c2a1d5e7b', message: 'Pull Request successfully merged' }),
  http_check: (a) => ({ url: a.url, status: 200, ok: true, latencyMs: 42 }),
  slack_notify: (a, n) => ({ channel: a.channel, ts: `1700000000.${String(100 + n).padStart(6, '0')}`, url: null }),
  wait: (a) => ({ waitedS: a.seconds }),
  llm_task: () => ({ text: 'Done.' }),
};

export function defaultOutput(tool: string, args: Args, call: number): Output {
  return DEFAULTS[tool]?.(args, call) ?? { ok: true };
}
