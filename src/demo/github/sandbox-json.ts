/** The sandbox's objects as GitHub's REST API renders them: the fields octokit's callers read. */
import type { SandboxComment, SandboxIssue, SandboxRelease, SandboxRepo, SandboxRun } from './sandbox-world.ts';

/** Where a repository's web pages are: the sandbox's own origin, so no link leaves the machine. */
export type WebBase = string;

export const webUrl = (base: WebBase, repo: SandboxRepo, path = '') => `${base}/${repo.owner}/${repo.name}${path}`;

const user = (login: string) => ({ login, id: 1, type: 'User' });

export function repoJson(base: WebBase, repo: SandboxRepo) {
  return {
    id: 1,
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    html_url: webUrl(base, repo),
    description: repo.description,
    default_branch: 'main',
    private: false,
    archived: false,
    open_issues_count: repo.issues.filter((issue) => issue.state === 'open').length,
    pushed_at: new Date().toISOString(),
  };
}

export function issueJson(base: WebBase, repo: SandboxRepo, issue: SandboxIssue) {
  return {
    id: issue.number * 10,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    state: issue.state,
    html_url: webUrl(base, repo, `/${issue.pull ? 'pull' : 'issues'}/${issue.number}`),
    repository_url: `${base}/api/repos/${repo.owner}/${repo.name}`,
    labels: issue.labels.map((name, index) => ({ id: index + 1, name, color: 'ededed' })),
    assignees: [],
    user: user(issue.author),
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    ...(issue.pull ? { pull_request: { url: `${base}/api/repos/${repo.owner}/${repo.name}/pulls/${issue.number}` } } : {}),
  };
}

export function pullJson(base: WebBase, repo: SandboxRepo, issue: SandboxIssue) {
  const pull = issue.pull!;
  return {
    ...issueJson(base, repo, issue),
    state: pull.merged ? 'closed' : issue.state,
    draft: pull.draft,
    merged: pull.merged,
    mergeable: pull.mergeable,
    mergeable_state: pull.merged ? 'unknown' : pull.draft ? 'draft' : pull.mergeable ? 'clean' : 'dirty',
    merge_commit_sha: pull.mergeCommitSha,
    head: { ref: pull.head, sha: pull.headSha },
    base: { ref: 'main', sha: 'b0a5e00' },
  };
}

export function commentJson(base: WebBase, repo: SandboxRepo, comment: SandboxComment) {
  return {
    id: comment.id,
    body: comment.body,
    html_url: webUrl(base, repo, `/issues/${comment.issueNumber}#issuecomment-${comment.id}`),
    user: user('tandem-demo'),
    created_at: comment.createdAt,
    updated_at: comment.createdAt,
  };
}

export function releaseJson(base: WebBase, repo: SandboxRepo, release: SandboxRelease) {
  return {
    id: release.id,
    tag_name: release.tag,
    name: release.name,
    body: release.body,
    draft: release.draft,
    prerelease: release.prerelease,
    target_commitish: release.target,
    html_url: webUrl(base, repo, `/releases/tag/${release.tag}`),
    created_at: release.createdAt,
  };
}

/**
 * A run moves on with the clock, not with reads: queued for its first third, then in progress, then
 * completed with its workflow's conclusion, so the board shows a deploy running for a few seconds.
 */
export function runJson(base: WebBase, repo: SandboxRepo, run: SandboxRun, runMs: number) {
  const age = Date.now() - Date.parse(run.createdAt);
  const status = age >= runMs ? 'completed' : age >= runMs / 3 ? 'in_progress' : 'queued';
  return {
    id: run.id,
    name: run.name,
    workflow_id: run.workflowId,
    html_url: webUrl(base, repo, `/actions/runs/${run.id}`),
    status,
    conclusion: status === 'completed' ? run.conclusion : null,
    head_branch: run.branch,
    head_sha: 'f00dcafe',
    event: run.event,
    run_number: run.runNumber,
    created_at: run.createdAt,
    updated_at: new Date(Math.min(Date.now(), Date.parse(run.createdAt) + runMs)).toISOString(),
  };
}
