/**
 * A fake GitHub REST API on 127.0.0.1 for driving octokit end to end. Tests arrange repositories with
 * the helpers, script faults (rate limits, 5xx, a write whose connection drops after it took effect),
 * and read back what was created and which requests arrived.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appNotFound, createFakeGithubApp, type FakeGithubApp, type FakeGithubAppOptions } from './github-server-app.ts';
import { issueJson } from './github-server-json.ts';
import { routeRepo, type RouteAnswer } from './github-server-routes.ts';
import { createRepo, newId, nextIssueNumber, nowIso, type FakeIssue, type FakePull, type FakeRepo, type FakeWorkflow } from './github-server-state.ts';

export { FAKE_GITHUB_WEB } from './github-server-state.ts';
export type { FakeRepo, FakeWorkflow } from './github-server-state.ts';
export type { FakeGithubApp } from './github-server-app.ts';

export interface GithubFault {
  method: string;
  /** Matched against the path (no query), e.g. /\/issues$/ . */
  path: RegExp;
  /** Answer with this status, body and headers instead of the real handler… */
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** …or cut the connection without an answer; with `afterEffect` the real handler runs first. */
  drop?: boolean;
  afterEffect?: boolean;
  /** With `afterEffect`: instead of dropping, run this once the write took effect, then answer as usual (a test breaks something in between). */
  beforeAnswer?: () => void | Promise<void>;
  /** With `afterEffect`: the answer's status, headers and half its body are sent, then the connection is cut. */
  halfWritten?: boolean;
  /** How many matching requests it applies to (default 1). */
  times?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  body: unknown;
  authorization: string | undefined;
  /** In App mode: the installation whose token the request carried. */
  installationId?: number;
}

export interface FakeGithub {
  /** Octokit `baseUrl`. */
  url: string;
  repos: Map<string, FakeRepo>;
  requests: RecordedRequest[];
  addRepo(fullName: string, options?: Partial<Pick<FakeRepo, 'defaultBranch' | 'private' | 'archived'>>): FakeRepo;
  addIssue(fullName: string, issue: Partial<FakeIssue> & { title: string }): FakeIssue;
  addPull(fullName: string, pull: Partial<FakePull> & { title: string; head: string }): FakePull;
  addWorkflow(fullName: string, workflow: Partial<FakeWorkflow> & { path: string }): FakeWorkflow;
  fault(fault: GithubFault): void;
  /** Set when the fake was started with `app`: it then speaks to a GitHub App only. */
  app: FakeGithubApp | undefined;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

function send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(body === undefined || status === 204 ? undefined : JSON.stringify(body));
}

function searchIssues(repos: Map<string, FakeRepo>, q: string, sees: (fullName: string) => boolean = () => true) {
  const terms = q.split(/\s+/).filter(Boolean);
  const qualifier = (name: string) => terms.filter((t) => t.startsWith(`${name}:`)).map((t) => t.slice(name.length + 1));
  const words = terms.filter((t) => !t.includes(':')).map((t) => t.toLowerCase());
  const items: ReturnType<typeof issueJson>[] = [];
  for (const [fullName, repo] of repos) {
    if (!sees(fullName)) continue;
    if (qualifier('repo').length && !qualifier('repo').includes(fullName)) continue;
    if (qualifier('org').length && !qualifier('org').includes(repo.owner)) continue;
    for (const issue of repo.issues) {
      const is = qualifier('is');
      if (is.includes('issue') && issue.isPull) continue;
      if (is.includes('pr') && !issue.isPull) continue;
      if (is.includes('open') && issue.state !== 'open') continue;
      if (is.includes('closed') && issue.state !== 'closed') continue;
      if (!qualifier('label').every((label) => issue.labels.includes(label))) continue;
      if (!words.every((word) => `${issue.title} ${issue.body ?? ''}`.toLowerCase().includes(word))) continue;
      items.push(issueJson(repo, issue));
    }
  }
  return items;
}

/**
 * `pathPrefix: '/api/v3'` serves the API where GitHub Enterprise Server has it. `app` makes it answer
 * a GitHub App (JWT, installations, installation tokens) instead of accepting any request.
 */
export async function startFakeGithub(options: { pathPrefix?: string; app?: FakeGithubAppOptions } = {}): Promise<FakeGithub> {
  const prefix = options.pathPrefix ?? '';
  const app = options.app ? createFakeGithubApp(options.app) : undefined;
  const repos = new Map<string, FakeRepo>();
  const requests: RecordedRequest[] = [];
  const faults: GithubFault[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = req.url ?? '/';
    if (prefix && !raw.startsWith(`${prefix}/`)) return send(res, 404, { message: 'Not Found' });
    const url = new URL(raw.slice(prefix.length), 'http://fake');
    const body = await readBody(req);
    const method = req.method ?? 'GET';
    const recorded: RecordedRequest = { method, path: url.pathname, query: url.search, body, authorization: req.headers.authorization };
    requests.push(recorded);
    let sees: ((fullName: string) => boolean) | undefined;
    if (app) {
      const appAnswer = app.answerAppRoute(method, url.pathname, req.headers.authorization);
      if (appAnswer) return send(res, appAnswer.status, appAnswer.body);
      const authorized = app.authorize(req.headers.authorization);
      if ('answer' in authorized) return send(res, authorized.answer.status, authorized.answer.body);
      recorded.installationId = authorized.installationId;
      sees = authorized.sees;
      const repoPath = /^\/repos\/([^/]+)\/([^/]+)/.exec(url.pathname);
      if (repoPath && !sees(`${repoPath[1]}/${repoPath[2]}`)) return send(res, 404, appNotFound.body);
    }

    const fault = faults.find((f) => f.method === method && f.path.test(url.pathname) && (f.times ?? 1) > 0);
    if (fault) fault.times = (fault.times ?? 1) - 1;
    if (fault && !fault.afterEffect) {
      if (fault.drop) return void res.socket?.destroy();
      return send(res, fault.status ?? 500, fault.body ?? { message: 'Server Error' }, fault.headers);
    }

    const answer = answerFor(method, url, body, sees);
    if (fault?.afterEffect && fault.halfWritten) {
      const text = JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) });
      return void res.write(text.slice(0, Math.floor(text.length / 2)), () => res.socket?.destroy());
    }
    if (fault?.afterEffect && fault.beforeAnswer) await fault.beforeAnswer();
    else if (fault?.afterEffect) return void res.socket?.destroy();
    send(res, answer.status, answer.body, answer.nextPage ? { link: `<http://127.0.0.1:${port}${prefix}${answer.nextPage}>; rel="next"` } : {});
  }

  function answerFor(method: string, url: URL, body: Record<string, unknown>, sees?: (fullName: string) => boolean): RouteAnswer {
    if (method === 'GET' && url.pathname === '/search/issues') {
      const items = searchIssues(repos, url.searchParams.get('q') ?? '', sees);
      return {
        status: 200,
        body: { total_count: items.length, incomplete_results: false, items: items.slice(0, Number(url.searchParams.get('per_page') ?? 30)) },
      };
    }
    const match = /^\/repos\/([^/]+)\/([^/]+)(.*)$/.exec(url.pathname);
    const repo = match ? repos.get(`${match[1]}/${match[2]}`) : undefined;
    if (!match || !repo) return { status: 404, body: { message: 'Not Found' } };
    return routeRepo(method, match[3] ?? '', { repo, query: url.searchParams, body });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  function repoOf(fullName: string): FakeRepo {
    const repo = repos.get(fullName);
    if (!repo) throw new Error(`fake GitHub has no repo ${fullName}; call addRepo first`);
    return repo;
  }

  function addIssue(fullName: string, partial: Partial<FakeIssue> & { title: string }): FakeIssue {
    const repo = repoOf(fullName);
    const at = nowIso();
    const issue: FakeIssue = {
      number: nextIssueNumber(repo),
      body: null,
      state: 'open',
      labels: [],
      assignees: [],
      author: 'octocat',
      isPull: false,
      createdAt: at,
      updatedAt: at,
      ...partial,
    };
    repo.issues.push(issue);
    return issue;
  }

  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    repos,
    requests,
    addRepo(fullName, options) {
      const repo = createRepo(fullName, options);
      repos.set(fullName, repo);
      return repo;
    },
    addIssue,
    addPull(fullName, partial) {
      const repo = repoOf(fullName);
      const issue = addIssue(fullName, { title: partial.title, isPull: true, ...(partial.number ? { number: partial.number } : {}) });
      const pull: FakePull = {
        base: repo.defaultBranch,
        headSha: `sha${issue.number}`,
        draft: false,
        mergeable: true,
        mergeableState: 'clean',
        merged: false,
        mergeCommitSha: null,
        ...partial,
        number: issue.number,
      };
      repo.pulls.set(issue.number, pull);
      return pull;
    },
    addWorkflow(fullName, partial) {
      const workflow: FakeWorkflow = {
        id: newId(),
        name: partial.path.replace(/^.*\//, ''),
        conclusion: 'success',
        pollsPerPhase: 1,
        returnRunDetails: false,
        listLag: 0,
        ...partial,
      };
      repoOf(fullName).workflows.push(workflow);
      return workflow;
    },
    fault(fault) {
      faults.push({ ...fault });
    },
    app: app?.state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
