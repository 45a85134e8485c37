import { z } from 'zod';

export const WorkflowIdSchema = z
  .union([z.string().min(1), z.number().int().positive()])
  .describe('Workflow file name (e.g. "deploy.yml") or numeric workflow id');

/** The fields of a workflow run we use; octokit's generated type has many more. */
export interface WorkflowRunLike {
  id: number;
  html_url: string;
  name?: string | null;
  status: string | null;
  conclusion: string | null;
  head_branch: string | null;
  head_sha: string;
  event: string;
  run_number: number;
  created_at: string;
  updated_at: string;
}

/** describeRun's shape, as tools declare it in their output schemas. */
export const WorkflowRunSchema = z.object({
  runId: z.number(),
  url: z.string(),
  name: z.string().nullable(),
  status: z.string().nullable(),
  conclusion: z.string().nullable(),
  branch: z.string().nullable(),
});

export function describeRun(run: WorkflowRunLike) {
  return {
    runId: run.id,
    url: run.html_url,
    name: run.name ?? null,
    status: run.status,
    conclusion: run.conclusion,
    branch: run.head_branch,
    event: run.event,
    headSha: run.head_sha,
    runNumber: run.run_number,
    createdAt: run.created_at,
    updatedAt: run.updated_at,
  };
}

/** `refs/heads/main` and `main` name the same branch in a run's head_branch. */
export function shortRef(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, '');
}

/**
 * The run a workflow_dispatch on `ref` made at or after `since`: the earliest such run, since a later
 * one is more likely someone else's dispatch.
 */
export function pickDispatchedRun<R extends WorkflowRunLike>(runs: readonly R[], ref: string, since: Date): R | undefined {
  const branch = shortRef(ref);
  return runs
    .filter((run) => run.event === 'workflow_dispatch')
    .filter((run) => run.head_branch === branch || run.head_sha === ref)
    .filter((run) => Date.parse(run.created_at) >= since.getTime())
    .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.id - b.id)[0];
}
