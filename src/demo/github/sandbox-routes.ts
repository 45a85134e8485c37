/** The REST routes under /repos/{owner}/{repo} the built-in tools use, answered as GitHub answers them. */
import { commentJson, issueJson, pullJson, releaseJson, repoJson, runJson, webUrl, type WebBase } from './sandbox-json.ts';
import { newId, type SandboxIssue, type SandboxRepo, type SandboxRun } from './sandbox-world.ts';

export interface RouteInput {
  repo: SandboxRepo;
  params: string[];
  query: URLSearchParams;
  body: Record<string, unknown>;
  base: WebBase;
  /** How long a dispatched workflow run takes. */
  runMs: number;
}
export interface RouteAnswer {
  status: number;
  body?: unknown;
}
type Handler = (input: RouteInput) => RouteAnswer;

export const NOT_FOUND: RouteAnswer = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };

const perPage = (query: URLSearchParams) => Math.min(Number(query.get('per_page') ?? 30) || 30, 100);
const page = (query: URLSearchParams) => Math.max(1, Number(query.get('page') ?? 1) || 1);
const onePage = <T>(items: T[], query: URLSearchParams) => items.slice((page(query) - 1) * perPage(query), page(query) * perPage(query));
const newestFirst = <T extends { createdAt: string }>(items: T[]) => [...items].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
const findIssue = (repo: SandboxRepo, number: string | undefined) => repo.issues.find((issue) => issue.number === Number(number));
const findPull = (repo: SandboxRepo, number: string | undefined) => findIssue(repo, number)?.pull && findIssue(repo, number);
const findWorkflow = (repo: SandboxRepo, id: string | undefined) => repo.workflows.find((flow) => String(flow.id) === id || flow.file === id);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const nextNumber = (repo: SandboxRepo) => repo.issues.reduce((max, issue) => Math.max(max, issue.number), 0) + 1;

function runsAnswer({ repo, query, base, runMs }: RouteInput, runs: SandboxRun[]): RouteAnswer {
  const rendered = newestFirst(runs)
    .map((run) => runJson(base, repo, run, runMs))
    .filter((run) => !query.get('branch') || run.head_branch === query.get('branch'))
    .filter((run) => !query.get('event') || run.event === query.get('event'))
    .filter((run) => !query.get('status') || run.status === query.get('status') || run.conclusion === query.get('status'));
  return { status: 200, body: { total_count: rendered.length, workflow_runs: rendered.slice(0, perPage(query)) } };
}

function merge({ repo, params, body }: RouteInput): RouteAnswer {
  const issue = findPull(repo, params[0]);
  if (!issue?.pull) return NOT_FOUND;
  const pull = issue.pull;
  if (pull.merged) return { status: 405, body: { message: 'Pull Request is already merged' } };
  if (!pull.mergeable || pull.draft) return { status: 405, body: { message: 'Pull Request is not mergeable' } };
  if (typeof body['sha'] === 'string' && body['sha'] !== pull.headSha) return { status: 409, body: { message: 'Head branch was modified.' } };
  pull.merged = true;
  pull.mergeCommitSha = `m${issue.number}f00d`;
  issue.state = 'closed';
  issue.updatedAt = new Date().toISOString();
  return { status: 200, body: { sha: pull.mergeCommitSha, merged: true, message: 'Pull Request successfully merged' } };
}

function createIssue({ repo, body, base }: RouteInput): RouteAnswer {
  const at = new Date().toISOString();
  const issue: SandboxIssue = {
    number: nextNumber(repo),
    title: String(body['title'] ?? ''),
    body: text(body['body']),
    state: 'open',
    labels: strings(body['labels']),
    author: 'tandem-demo',
    createdAt: at,
    updatedAt: at,
  };
  repo.issues.push(issue);
  return { status: 201, body: issueJson(base, repo, issue) };
}

function createRelease({ repo, body, base }: RouteInput): RouteAnswer {
  const tag = String(body['tag_name'] ?? '');
  if (repo.releases.some((release) => release.tag === tag))
    return { status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'Release', code: 'already_exists', field: 'tag_name' }] } };
  const release = {
    id: newId(),
    tag,
    name: text(body['name']),
    body: text(body['body']),
    draft: body['draft'] === true,
    prerelease: body['prerelease'] === true,
    target: text(body['target_commitish']) ?? 'main',
    createdAt: new Date().toISOString(),
  };
  repo.releases.push(release);
  return { status: 201, body: releaseJson(base, repo, release) };
}

function compare({ repo, params, base }: RouteInput): RouteAnswer {
  const [from = '', to = ''] = params;
  const commits = to === 'main' ? repo.commitsSince[from] : from === to ? [] : undefined;
  if (!commits) return NOT_FOUND;
  return {
    status: 200,
    body: {
      html_url: webUrl(base, repo, `/compare/${from}...${to}`),
      status: commits.length ? 'ahead' : 'identical',
      ahead_by: commits.length,
      behind_by: 0,
      total_commits: commits.length,
      commits: commits.map((c) => ({
        sha: c.sha,
        html_url: webUrl(base, repo, `/commit/${c.sha}`),
        author: { login: c.author },
        commit: { message: c.message, author: { name: c.author } },
      })),
      files: [{ filename: 'src/orders.ts', status: 'modified', additions: 42, deletions: 7 }],
    },
  };
}

/** A dispatch answers with its run (the API's `return_run_details`), so the tool never has to hunt for it. */
function dispatch({ repo, params, body, base }: RouteInput): RouteAnswer {
  const flow = findWorkflow(repo, params[0]);
  if (!flow) return NOT_FOUND;
  if (typeof body['ref'] !== 'string') return { status: 422, body: { message: 'Invalid request: ref is required' } };
  const run: SandboxRun = {
    id: newId(),
    workflowId: flow.id,
    name: flow.name,
    branch: body['ref'].replace(/^refs\/(heads|tags)\//, ''),
    event: 'workflow_dispatch',
    conclusion: flow.conclusion,
    runNumber: repo.runs.filter((r) => r.workflowId === flow.id).length + 18,
    createdAt: new Date().toISOString(),
  };
  repo.runs.push(run);
  if (body['return_run_details'] !== true) return { status: 204 };
  const runPath = `/actions/runs/${run.id}`;
  return {
    status: 200,
    body: { workflow_run_id: run.id, run_url: `${base}/api/repos/${repo.owner}/${repo.name}${runPath}`, html_url: webUrl(base, repo, runPath) },
  };
}

const ROUTES: [method: string, path: RegExp, handler: Handler][] = [
  ['GET', /^$/, ({ repo, base }) => ({ status: 200, body: repoJson(base, repo) })],
  [
    'GET',
    /^\/pulls$/,
    ({ repo, query, base }) => {
      const state = query.get('state') ?? 'open';
      const pulls = newestFirst(repo.issues.filter((issue) => issue.pull && (state === 'all' || (issue.pull.merged ? 'closed' : issue.state) === state)));
      return { status: 200, body: onePage(pulls, query).map((issue) => pullJson(base, repo, issue)) };
    },
  ],
  [
    'GET',
    /^\/pulls\/(\d+)$/,
    (input) =>
      findPull(input.repo, input.params[0]) ? { status: 200, body: pullJson(input.base, input.repo, findPull(input.repo, input.params[0])!) } : NOT_FOUND,
  ],
  ['PUT', /^\/pulls\/(\d+)\/merge$/, merge],
  [
    'GET',
    /^\/commits\/([^/]+)\/check-runs$/,
    ({ repo, params }) => {
      const pull = repo.issues.find((issue) => issue.pull?.headSha === params[0])?.pull;
      const runs = pull
        ? [
            {
              id: 1,
              name: 'CI / test',
              status: pull.checks === 'pending' ? 'in_progress' : 'completed',
              conclusion: pull.checks === 'pending' ? null : pull.checks,
            },
          ]
        : [];
      return { status: 200, body: { total_count: runs.length, check_runs: runs } };
    },
  ],
  ['GET', /^\/commits\/([^/]+)\/status$/, ({ params }) => ({ status: 200, body: { state: 'pending', sha: params[0], total_count: 0, statuses: [] } })],
  [
    'GET',
    /^\/issues$/,
    ({ repo, query, base }) => {
      const since = Date.parse(query.get('since') ?? '') || 0;
      const state = query.get('state') ?? 'open';
      const issues = newestFirst(repo.issues).filter((issue) => (state === 'all' || issue.state === state) && Date.parse(issue.updatedAt) >= since);
      return { status: 200, body: onePage(issues, query).map((issue) => issueJson(base, repo, issue)) };
    },
  ],
  ['POST', /^\/issues$/, createIssue],
  [
    'GET',
    /^\/issues\/(\d+)$/,
    ({ repo, params, base }) => (findIssue(repo, params[0]) ? { status: 200, body: issueJson(base, repo, findIssue(repo, params[0])!) } : NOT_FOUND),
  ],
  [
    'GET',
    /^\/issues\/(\d+)\/comments$/,
    ({ repo, params, query, base }) => {
      if (!findIssue(repo, params[0])) return NOT_FOUND;
      const comments = repo.comments.filter((comment) => comment.issueNumber === Number(params[0]));
      return { status: 200, body: onePage(comments, query).map((comment) => commentJson(base, repo, comment)) };
    },
  ],
  [
    'POST',
    /^\/issues\/(\d+)\/comments$/,
    ({ repo, params, body, base }) => {
      const issue = findIssue(repo, params[0]);
      if (!issue) return NOT_FOUND;
      const comment = { id: newId(), issueNumber: issue.number, body: String(body['body'] ?? ''), createdAt: new Date().toISOString() };
      repo.comments.push(comment);
      return { status: 201, body: commentJson(base, repo, comment) };
    },
  ],
  [
    'POST',
    /^\/issues\/(\d+)\/labels$/,
    ({ repo, params, body }) => {
      const issue = findIssue(repo, params[0]);
      if (!issue) return NOT_FOUND;
      for (const label of strings(body['labels'])) if (!issue.labels.includes(label)) issue.labels.push(label);
      issue.updatedAt = new Date().toISOString();
      return { status: 200, body: issue.labels.map((name, index) => ({ id: index + 1, name, color: 'ededed' })) };
    },
  ],
  [
    'GET',
    /^\/releases$/,
    ({ repo, query, base }) => ({ status: 200, body: onePage(newestFirst(repo.releases), query).map((r) => releaseJson(base, repo, r)) }),
  ],
  ['POST', /^\/releases$/, createRelease],
  ['GET', /^\/compare\/(.+)\.\.\.(.+)$/, compare],
  ['POST', /^\/actions\/workflows\/([^/]+)\/dispatches$/, dispatch],
  [
    'GET',
    /^\/actions\/workflows\/([^/]+)\/runs$/,
    (input) => {
      const flow = findWorkflow(input.repo, input.params[0]);
      return flow
        ? runsAnswer(
            input,
            input.repo.runs.filter((run) => run.workflowId === flow.id),
          )
        : NOT_FOUND;
    },
  ],
  ['GET', /^\/actions\/runs$/, (input) => runsAnswer(input, input.repo.runs)],
  [
    'GET',
    /^\/actions\/runs\/(\d+)$/,
    ({ repo, params, base, runMs }) => {
      const run = repo.runs.find((candidate) => candidate.id === Number(params[0]));
      return run ? { status: 200, body: runJson(base, repo, run, runMs) } : NOT_FOUND;
    },
  ],
];

/** `rest` is the path after /repos/{owner}/{repo}. */
export function routeRepo(method: string, rest: string, input: Omit<RouteInput, 'params'>): RouteAnswer {
  for (const [routeMethod, pattern, handler] of ROUTES) {
    const match = routeMethod === method ? pattern.exec(rest) : null;
    if (match) return handler({ ...input, params: match.slice(1).map(decodeURIComponent) });
  }
  return NOT_FOUND;
}
