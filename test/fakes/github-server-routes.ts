/** The REST routes the fake GitHub answers; each returns a status and a JSON body like the real API's. */
import { commentJson, issueJson, pullJson, releaseJson, repoJson, runJson } from './github-server-json.ts';
import { advanceRun, newId, nextIssueNumber, nowIso, webUrl, type FakeRepo, type FakeRun } from './github-server-state.ts';

export interface RouteInput {
  repo: FakeRepo;
  params: string[];
  query: URLSearchParams;
  body: Record<string, unknown>;
}
export interface RouteAnswer {
  status: number;
  body?: unknown;
  /** Path and query of the next page; the server turns it into a `link` header. */
  nextPage?: string;
}
type Handler = (input: RouteInput) => RouteAnswer;

const notFound: RouteAnswer = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };

function perPage(query: URLSearchParams, fallback = 30): number {
  return Math.min(Number(query.get('per_page') ?? fallback), 100);
}

/** One page of a listing, with the next page for GitHub's `link` header so octokit's paginate follows it. */
function paged<T>(items: T[], query: URLSearchParams, path: string, render: (item: T) => unknown): RouteAnswer {
  const size = perPage(query);
  const page = Math.max(1, Number(query.get('page') ?? 1));
  const body = items.slice((page - 1) * size, page * size).map(render);
  if (page * size >= items.length) return { status: 200, body };
  const next = new URLSearchParams(query);
  next.set('page', String(page + 1));
  return { status: 200, body, nextPage: `${path}?${next.toString()}` };
}

function findIssue(repo: FakeRepo, number: string | undefined) {
  return repo.issues.find((issue) => issue.number === Number(number));
}

function findWorkflow(repo: FakeRepo, id: string | undefined) {
  return repo.workflows.find((workflow) => String(workflow.id) === id || workflow.path.endsWith(`/${id}`) || workflow.path === id);
}

function newestFirst<T extends { createdAt: string }>(items: T[]): T[] {
  return [...items].reverse().sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
}

function visibleRuns(repo: FakeRepo, query: URLSearchParams, runs: FakeRun[]): FakeRun[] {
  return newestFirst(runs)
    .filter((run) => {
      if (run.listsUntilVisible > 0) {
        run.listsUntilVisible -= 1;
        return false;
      }
      return true;
    })
    .filter((run) => !query.get('branch') || run.headBranch === query.get('branch'))
    .filter((run) => !query.get('event') || run.event === query.get('event'))
    .filter((run) => !query.get('status') || run.status === query.get('status') || run.conclusion === query.get('status'));
}

function runsAnswer(repo: FakeRepo, query: URLSearchParams, runs: FakeRun[]): RouteAnswer {
  const visible = visibleRuns(repo, query, runs);
  return { status: 200, body: { total_count: visible.length, workflow_runs: visible.slice(0, perPage(query)).map((run) => runJson(repo, run)) } };
}

const routes: [method: string, path: RegExp, handler: Handler][] = [
  ['GET', /^$/, ({ repo }) => ({ status: 200, body: repoJson(repo) })],
  [
    'GET',
    /^\/pulls$/,
    ({ repo, query }) => {
      const state = query.get('state') ?? 'open';
      const pulls = newestFirst(repo.issues.filter((issue) => issue.isPull))
        .map((issue) => ({ issue, pull: repo.pulls.get(issue.number)! }))
        .filter(({ issue }) => state === 'all' || issue.state === state)
        .filter(({ pull }) => !query.get('base') || pull.base === query.get('base'));
      return { status: 200, body: pulls.slice(0, perPage(query)).map(({ issue, pull }) => pullJson(repo, issue, pull)) };
    },
  ],
  [
    'GET',
    /^\/pulls\/(\d+)$/,
    ({ repo, params }) => {
      const issue = findIssue(repo, params[0]);
      const pull = repo.pulls.get(Number(params[0]));
      return issue && pull ? { status: 200, body: pullJson(repo, issue, pull) } : notFound;
    },
  ],
  [
    'PUT',
    /^\/pulls\/(\d+)\/merge$/,
    ({ repo, params, body }) => {
      const issue = findIssue(repo, params[0]);
      const pull = repo.pulls.get(Number(params[0]));
      if (!issue || !pull) return notFound;
      if (pull.merged || pull.mergeable !== true)
        return { status: 405, body: { message: pull.merged ? 'Pull Request is already merged' : 'Pull Request is not mergeable' } };
      if (typeof body['sha'] === 'string' && body['sha'] !== pull.headSha)
        return { status: 409, body: { message: 'Head branch was modified. Review and try the merge again.' } };
      pull.merged = true;
      pull.mergeCommitSha = `merge${pull.number}sha`;
      issue.state = 'closed';
      return { status: 200, body: { sha: pull.mergeCommitSha, merged: true, message: 'Pull Request successfully merged' } };
    },
  ],
  [
    'GET',
    /^\/commits\/([^/]+)\/check-runs$/,
    ({ repo, params }) => {
      const runs = repo.checkRuns.get(params[0]!) ?? [];
      return { status: 200, body: { total_count: runs.length, check_runs: runs.map((run, index) => ({ id: index + 1, ...run })) } };
    },
  ],
  [
    'GET',
    /^\/commits\/([^/]+)\/status$/,
    ({ repo, params }) => {
      const statuses = repo.statuses.get(params[0]!) ?? [];
      const state = statuses.some((s) => s.state === 'failure' || s.state === 'error')
        ? 'failure'
        : statuses.some((s) => s.state === 'pending') || statuses.length === 0
          ? 'pending'
          : 'success';
      return { status: 200, body: { state, sha: params[0], total_count: statuses.length, statuses } };
    },
  ],
  [
    'GET',
    /^\/issues$/,
    ({ repo, query }) => {
      const since = query.get('since') ? Date.parse(query.get('since')!) : 0;
      const state = query.get('state') ?? 'open';
      const issues = newestFirst(repo.issues).filter((issue) => (state === 'all' || issue.state === state) && Date.parse(issue.updatedAt) >= since);
      return paged(issues, query, `/repos/${repo.owner}/${repo.name}/issues`, (issue) => issueJson(repo, issue));
    },
  ],
  [
    'POST',
    /^\/issues$/,
    ({ repo, body }) => {
      const at = nowIso();
      const issue = {
        number: nextIssueNumber(repo),
        title: String(body['title']),
        body: typeof body['body'] === 'string' ? body['body'] : null,
        state: 'open' as const,
        labels: (body['labels'] as string[] | undefined) ?? [],
        assignees: (body['assignees'] as string[] | undefined) ?? [],
        author: 'tandem-bot',
        isPull: false,
        createdAt: at,
        updatedAt: at,
      };
      repo.issues.push(issue);
      return { status: 201, body: issueJson(repo, issue) };
    },
  ],
  [
    'GET',
    /^\/issues\/(\d+)$/,
    ({ repo, params }) => {
      const issue = findIssue(repo, params[0]);
      return issue ? { status: 200, body: issueJson(repo, issue) } : notFound;
    },
  ],
  [
    'GET',
    /^\/issues\/(\d+)\/comments$/,
    ({ repo, params, query }) => {
      if (!findIssue(repo, params[0])) return notFound;
      const since = query.get('since') ? Date.parse(query.get('since')!) : 0;
      const comments = repo.comments.filter((c) => c.issueNumber === Number(params[0]) && Date.parse(c.createdAt) >= since);
      return paged(comments, query, `/repos/${repo.owner}/${repo.name}/issues/${params[0]}/comments`, (c) => commentJson(repo, c));
    },
  ],
  [
    'POST',
    /^\/issues\/(\d+)\/comments$/,
    ({ repo, params, body }) => {
      const issue = findIssue(repo, params[0]);
      if (!issue) return notFound;
      const comment = { id: newId(), issueNumber: issue.number, body: String(body['body']), createdAt: nowIso() };
      repo.comments.push(comment);
      return { status: 201, body: commentJson(repo, comment) };
    },
  ],
  [
    'POST',
    /^\/issues\/(\d+)\/labels$/,
    ({ repo, params, body }) => {
      const issue = findIssue(repo, params[0]);
      if (!issue) return notFound;
      for (const label of (body['labels'] as string[]) ?? []) if (!issue.labels.includes(label)) issue.labels.push(label);
      issue.updatedAt = nowIso();
      return { status: 200, body: issue.labels.map((name, index) => ({ id: index + 1, name, color: 'ededed' })) };
    },
  ],
  [
    'GET',
    /^\/releases$/,
    ({ repo, query }) => ({
      status: 200,
      body: newestFirst(repo.releases)
        .slice(0, perPage(query))
        .map((r) => releaseJson(repo, r)),
    }),
  ],
  [
    'POST',
    /^\/releases$/,
    ({ repo, body }) => {
      const tag = String(body['tag_name']);
      if (repo.releases.some((release) => release.tag === tag))
        return { status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'Release', code: 'already_exists', field: 'tag_name' }] } };
      const release = {
        id: newId(),
        tag,
        name: typeof body['name'] === 'string' ? body['name'] : null,
        body: typeof body['body'] === 'string' ? body['body'] : null,
        draft: body['draft'] === true,
        prerelease: body['prerelease'] === true,
        target: typeof body['target_commitish'] === 'string' ? body['target_commitish'] : repo.defaultBranch,
        createdAt: nowIso(),
      };
      repo.releases.push(release);
      return { status: 201, body: releaseJson(repo, release) };
    },
  ],
  [
    'GET',
    /^\/compare\/(.+)\.\.\.(.+)$/,
    ({ repo, params }) => {
      const comparison = repo.comparisons.get(`${params[0]}...${params[1]}`);
      if (!comparison) return notFound;
      return {
        status: 200,
        body: {
          html_url: webUrl(repo, `/compare/${params[0]}...${params[1]}`),
          status: comparison.commits.length ? 'ahead' : 'identical',
          ahead_by: comparison.commits.length,
          behind_by: comparison.behindBy ?? 0,
          total_commits: comparison.commits.length,
          commits: comparison.commits.map((c) => ({
            sha: c.sha,
            html_url: webUrl(repo, `/commit/${c.sha}`),
            author: { login: c.author },
            commit: { message: c.message, author: { name: c.author } },
          })),
          files: comparison.files,
        },
      };
    },
  ],
  [
    'POST',
    /^\/actions\/workflows\/([^/]+)\/dispatches$/,
    ({ repo, params, body }) => {
      const workflow = findWorkflow(repo, params[0]);
      if (!workflow) return notFound;
      if (typeof body['ref'] !== 'string') return { status: 422, body: { message: 'Invalid request: ref is required' } };
      const at = nowIso();
      const run: FakeRun = {
        id: newId(),
        workflowId: workflow.id,
        name: workflow.name,
        headBranch: body['ref'].replace(/^refs\/(heads|tags)\//, ''),
        headSha: 'abc123',
        event: 'workflow_dispatch',
        status: 'queued',
        conclusion: null,
        finalConclusion: workflow.conclusion,
        runNumber: repo.runs.filter((r) => r.workflowId === workflow.id).length + 1,
        reads: 0,
        listsUntilVisible: workflow.listLag,
        createdAt: at,
        updatedAt: at,
        inputs: (body['inputs'] as Record<string, unknown>) ?? {},
      };
      repo.runs.push(run);
      if (workflow.returnRunDetails && body['return_run_details'] === true) {
        return {
          status: 200,
          body: {
            workflow_run_id: run.id,
            run_url: `/repos/${repo.owner}/${repo.name}/actions/runs/${run.id}`,
            html_url: webUrl(repo, `/actions/runs/${run.id}`),
          },
        };
      }
      return { status: 204 };
    },
  ],
  [
    'GET',
    /^\/actions\/workflows\/([^/]+)\/runs$/,
    ({ repo, params, query }) => {
      const workflow = findWorkflow(repo, params[0]);
      return workflow
        ? runsAnswer(
            repo,
            query,
            repo.runs.filter((run) => run.workflowId === workflow.id),
          )
        : notFound;
    },
  ],
  ['GET', /^\/actions\/runs$/, ({ repo, query }) => runsAnswer(repo, query, repo.runs)],
  [
    'GET',
    /^\/actions\/runs\/(\d+)$/,
    ({ repo, params }) => {
      const run = repo.runs.find((r) => r.id === Number(params[0]));
      if (!run) return notFound;
      advanceRun(run, repo.workflows.find((w) => w.id === run.workflowId)?.pollsPerPhase ?? 1);
      return { status: 200, body: runJson(repo, run) };
    },
  ],
];

/** Routes under /repos/{owner}/{repo}; `rest` is the path after the repo. */
export function routeRepo(method: string, rest: string, input: Omit<RouteInput, 'params'>): RouteAnswer {
  for (const [routeMethod, pattern, handler] of routes) {
    const match = routeMethod === method ? pattern.exec(rest) : null;
    if (match) return handler({ ...input, params: match.slice(1).map(decodeURIComponent) });
  }
  return notFound;
}
