/**
 * What the demo's GitHub holds: two repositories, `demo/api` and `demo/web`, with pull requests, issues,
 * a release, a comparison for release notes and workflows whose runs succeed or fail as the guided
 * tasks need. Plain data, rebuilt fresh at every start: the demo forgets its GitHub when it stops.
 */
export interface SandboxIssue {
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  labels: string[];
  author: string;
  /** Set for a pull request (GitHub numbers both from one sequence). */
  pull?: SandboxPull;
  createdAt: string;
  updatedAt: string;
}

export interface SandboxPull {
  head: string;
  headSha: string;
  draft: boolean;
  mergeable: boolean;
  merged: boolean;
  mergeCommitSha: string | null;
  /** The pull's CI, as check runs on its head commit. */
  checks: 'success' | 'failure' | 'pending';
}

export interface SandboxComment {
  id: number;
  issueNumber: number;
  body: string;
  createdAt: string;
}

export interface SandboxRelease {
  id: number;
  tag: string;
  name: string | null;
  body: string | null;
  draft: boolean;
  prerelease: boolean;
  target: string;
  createdAt: string;
}

export interface SandboxWorkflow {
  id: number;
  file: string;
  name: string;
  /** How every dispatched run of it ends: the demo's deploy of demo/web fails, its rollback works. */
  conclusion: 'success' | 'failure';
}

export interface SandboxRun {
  id: number;
  workflowId: number;
  name: string;
  branch: string;
  event: string;
  conclusion: 'success' | 'failure';
  runNumber: number;
  createdAt: string;
}

export interface SandboxRepo {
  owner: string;
  name: string;
  description: string;
  issues: SandboxIssue[];
  comments: SandboxComment[];
  releases: SandboxRelease[];
  workflows: SandboxWorkflow[];
  runs: SandboxRun[];
  /** Commits in `main` since each tag, for compare. */
  commitsSince: Record<string, { sha: string; message: string; author: string }[]>;
}

export type SandboxWorld = Map<string, SandboxRepo>;

let lastId = 7000;
export const newId = (): number => ++lastId;

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

function issue(number: number, title: string, labels: string[], author: string, pull?: Partial<SandboxPull>): SandboxIssue {
  const at = ago(600 - number * 20);
  return {
    number,
    title,
    body: pull ? `${title}.\n\n(A pull request in Tandem's demo sandbox.)` : `${title}.\n\n(An issue in Tandem's demo sandbox.)`,
    state: 'open',
    labels,
    author,
    ...(pull
      ? {
          pull: {
            head: `feature/${number}`,
            headSha: `d${number}e${number}a${number}`,
            draft: false,
            mergeable: true,
            merged: false,
            mergeCommitSha: null,
            checks: 'success',
            ...pull,
          },
        }
      : {}),
    createdAt: at,
    updatedAt: at,
  };
}

function workflow(file: string, name: string, conclusion: 'success' | 'failure'): SandboxWorkflow {
  return { id: newId(), file, name, conclusion };
}

function pastRun(flow: SandboxWorkflow, runNumber: number, minutesAgo: number): SandboxRun {
  return { id: newId(), workflowId: flow.id, name: flow.name, branch: 'main', event: 'push', conclusion: 'success', runNumber, createdAt: ago(minutesAgo) };
}

function api(): SandboxRepo {
  const ci = workflow('ci.yml', 'CI', 'success');
  return {
    owner: 'demo',
    name: 'api',
    description: 'The demo order service',
    issues: [
      issue(3, 'Timeouts on /orders under load', ['bug'], 'maria'),
      issue(5, 'Document pagination of /orders', ['docs'], 'sam'),
      issue(7, 'Add rate limiting to /orders', [], 'maria', {}),
      issue(8, 'Bump Node.js to 20.19', ['dependencies'], 'renovate', {}),
      issue(9, 'WIP: new billing client', [], 'sam', { draft: true, mergeable: false, checks: 'failure' }),
    ],
    comments: [],
    releases: [
      { id: newId(), tag: 'v1.3.0', name: 'v1.3.0', body: 'Orders can be cancelled.', draft: false, prerelease: false, target: 'main', createdAt: ago(9000) },
    ],
    workflows: [ci, workflow('release.yml', 'Release', 'success')],
    runs: [pastRun(ci, 41, 300), pastRun(ci, 42, 120)],
    commitsSince: {
      'v1.3.0': [
        { sha: 'a1b2c3d', message: 'Retry payment webhooks with backoff', author: 'maria' },
        { sha: 'b2c3d4e', message: 'Return 429 with Retry-After when the queue is full', author: 'sam' },
        { sha: 'c3d4e5f', message: 'Fix the total of orders with a discount', author: 'maria' },
      ],
    },
  };
}

function web(): SandboxRepo {
  const deploy = workflow('deploy.yml', 'Deploy', 'failure');
  return {
    owner: 'demo',
    name: 'web',
    description: 'The demo storefront',
    issues: [issue(2, 'Broken layout on Safari 17', ['bug'], 'lee'), issue(4, 'Dark mode toggle', [], 'lee', {})],
    comments: [],
    releases: [],
    workflows: [deploy, workflow('rollback.yml', 'Rollback', 'success'), workflow('ci.yml', 'CI', 'success')],
    runs: [pastRun(deploy, 17, 1440)],
    commitsSince: {},
  };
}

export function seedWorld(): SandboxWorld {
  return new Map([api(), web()].map((repo) => [`${repo.owner}/${repo.name}`, repo]));
}
