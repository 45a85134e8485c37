/** How the fake GitHub renders its objects: the fields octokit callers read, named as the REST API names them. */
import {
  FAKE_GITHUB_WEB,
  webUrl,
  type FakeComment,
  type FakeIssue,
  type FakePull,
  type FakeRelease,
  type FakeRepo,
  type FakeRun,
} from './github-server-state.ts';

export function repoJson(repo: FakeRepo) {
  return {
    id: 1,
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    html_url: webUrl(repo),
    description: `${repo.name} service`,
    default_branch: repo.defaultBranch,
    private: repo.private,
    archived: repo.archived,
    open_issues_count: repo.issues.filter((issue) => issue.state === 'open').length,
    pushed_at: '2026-01-01T00:00:00Z',
  };
}

function user(login: string) {
  return { login, id: 1, type: 'User' };
}

export function issueJson(repo: FakeRepo, issue: FakeIssue) {
  return {
    id: issue.number * 10,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    state: issue.state,
    html_url: webUrl(repo, `/${issue.isPull ? 'pull' : 'issues'}/${issue.number}`),
    repository_url: `${FAKE_GITHUB_WEB}/api/repos/${repo.owner}/${repo.name}`,
    labels: issue.labels.map((name, index) => ({ id: index + 1, name, color: 'ededed' })),
    assignees: issue.assignees.map(user),
    user: user(issue.author),
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    ...(issue.isPull ? { pull_request: { url: `${FAKE_GITHUB_WEB}/api/pulls/${issue.number}` } } : {}),
  };
}

export function pullJson(repo: FakeRepo, issue: FakeIssue, pull: FakePull) {
  return {
    ...issueJson(repo, issue),
    html_url: webUrl(repo, `/pull/${pull.number}`),
    state: pull.merged ? 'closed' : issue.state,
    draft: pull.draft,
    merged: pull.merged,
    mergeable: pull.mergeable,
    mergeable_state: pull.mergeableState,
    merge_commit_sha: pull.mergeCommitSha,
    head: { ref: pull.head, sha: pull.headSha },
    base: { ref: pull.base, sha: 'base0000' },
  };
}

export function commentJson(repo: FakeRepo, comment: FakeComment) {
  return {
    id: comment.id,
    body: comment.body,
    html_url: webUrl(repo, `/issues/${comment.issueNumber}#issuecomment-${comment.id}`),
    user: user('tandem-bot'),
    created_at: comment.createdAt,
    updated_at: comment.createdAt,
  };
}

export function releaseJson(repo: FakeRepo, release: FakeRelease) {
  return {
    id: release.id,
    tag_name: release.tag,
    name: release.name,
    body: release.body,
    draft: release.draft,
    prerelease: release.prerelease,
    target_commitish: release.target,
    html_url: webUrl(repo, release.draft ? `/releases/edit/untagged-${release.id}` : `/releases/tag/${release.tag}`),
    created_at: release.createdAt,
  };
}

export function runJson(repo: FakeRepo, run: FakeRun) {
  return {
    id: run.id,
    name: run.name,
    workflow_id: run.workflowId,
    html_url: webUrl(repo, `/actions/runs/${run.id}`),
    status: run.status,
    conclusion: run.conclusion,
    head_branch: run.headBranch,
    head_sha: run.headSha,
    event: run.event,
    run_number: run.runNumber,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
  };
}
