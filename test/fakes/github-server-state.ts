/**
 * The fake GitHub's world: repositories with pulls, issues, comments, labels, releases, commits,
 * check runs, statuses and workflows. Plain data that tests arrange directly or through the helpers.
 */
export const FAKE_GITHUB_WEB = 'https://github.example';

export interface FakeIssue {
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  labels: string[];
  assignees: string[];
  author: string;
  isPull: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface FakePull {
  number: number;
  head: string;
  base: string;
  headSha: string;
  draft: boolean;
  /** null while GitHub is still computing, as on the real API. */
  mergeable: boolean | null;
  mergeableState: string;
  merged: boolean;
  mergeCommitSha: string | null;
}

export interface FakeComment {
  id: number;
  issueNumber: number;
  body: string;
  createdAt: string;
}

export interface FakeRelease {
  id: number;
  tag: string;
  name: string | null;
  body: string | null;
  draft: boolean;
  prerelease: boolean;
  target: string;
  createdAt: string;
}

export interface FakeWorkflow {
  id: number;
  path: string;
  name: string;
  /** What the next dispatched run concludes with. */
  conclusion: 'success' | 'failure' | 'cancelled' | 'timed_out';
  /** Reads of a run before it moves on from queued, then from in_progress. */
  pollsPerPhase: number;
  /** 200 with run details (the 2026 API) when the client asks for them, or the classic 204. */
  returnRunDetails: boolean;
  /** List calls for which a freshly dispatched run is not visible yet (GitHub creates runs with a lag). */
  listLag: number;
}

export interface FakeRun {
  id: number;
  workflowId: number;
  name: string;
  headBranch: string;
  headSha: string;
  event: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  finalConclusion: string;
  runNumber: number;
  reads: number;
  listsUntilVisible: number;
  createdAt: string;
  updatedAt: string;
  inputs: Record<string, unknown>;
}

export interface FakeRepo {
  owner: string;
  name: string;
  defaultBranch: string;
  private: boolean;
  archived: boolean;
  issues: FakeIssue[];
  pulls: Map<number, FakePull>;
  comments: FakeComment[];
  releases: FakeRelease[];
  workflows: FakeWorkflow[];
  runs: FakeRun[];
  checkRuns: Map<string, { name: string; status: string; conclusion: string | null }[]>;
  statuses: Map<string, { context: string; state: 'success' | 'failure' | 'error' | 'pending' }[]>;
  /** Compare results keyed `base...head`. */
  comparisons: Map<
    string,
    {
      commits: { sha: string; message: string; author: string }[];
      files: { filename: string; status: string; additions: number; deletions: number }[];
      behindBy?: number;
    }
  >;
}

let nextId = 1000;
export function newId(): number {
  return nextId++;
}

export function nowIso(): string {
  return new Date().toISOString();
}

export function webUrl(repo: FakeRepo, path = ''): string {
  return `${FAKE_GITHUB_WEB}/${repo.owner}/${repo.name}${path}`;
}

export function createRepo(fullName: string, options: Partial<Pick<FakeRepo, 'defaultBranch' | 'private' | 'archived'>> = {}): FakeRepo {
  const [owner = 'acme', name = 'api'] = fullName.split('/');
  return {
    owner,
    name,
    defaultBranch: options.defaultBranch ?? 'main',
    private: options.private ?? false,
    archived: options.archived ?? false,
    issues: [],
    pulls: new Map(),
    comments: [],
    releases: [],
    workflows: [],
    runs: [],
    checkRuns: new Map(),
    statuses: new Map(),
    comparisons: new Map(),
  };
}

export function nextIssueNumber(repo: FakeRepo): number {
  return repo.issues.reduce((max, issue) => Math.max(max, issue.number), 0) + 1;
}

/** Each read of a run moves it along: queued → in_progress → completed with the workflow's conclusion. */
export function advanceRun(run: FakeRun, pollsPerPhase: number): void {
  run.reads += 1;
  if (run.status === 'queued' && run.reads > pollsPerPhase) run.status = 'in_progress';
  else if (run.status === 'in_progress' && run.reads > pollsPerPhase * 2) {
    run.status = 'completed';
    run.conclusion = run.finalConclusion;
  }
  run.updatedAt = nowIso();
}
