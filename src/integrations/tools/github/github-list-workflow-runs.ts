import { z } from 'zod';
import { requestOptions, runGithub } from '../../github/call.ts';
import type { Octokit } from '../../github/client.ts';
import { RepoSchema, splitRepo } from '../../github/repo-ref.ts';
import { describeRun, WorkflowIdSchema } from '../../github/workflow-runs.ts';
import { WorkflowRunSchema } from '../../github/workflow-runs.ts';
import { defineTool } from '../define-tool.ts';
import { numberArg } from '../number-arg.ts';

const RUN_STATUSES = ['queued', 'in_progress', 'completed', 'success', 'failure', 'cancelled', 'waiting', 'pending', 'action_required'] as const;

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({ repo: z.string(), totalCount: z.number(), runs: z.array(WorkflowRunSchema) });

export function createGithubListWorkflowRunsTool(github: Octokit | undefined) {
  return defineTool({
    name: 'github_list_workflow_runs',
    description:
      'List recent GitHub Actions runs of a repository, newest first, optionally for one workflow (file name like "deploy.yml" or numeric id), branch or status. Each run has runId, status, conclusion and url.',
    risk: 'read',
    output: Output,
    targets: ['repo', 'workflow', 'branch'],
    input: z.object({
      repo: RepoSchema,
      workflow: WorkflowIdSchema.optional(),
      branch: z.string().min(1).optional(),
      status: z.enum(RUN_STATUSES).optional().describe('queued, in_progress, completed, or a conclusion such as failure'),
      limit: numberArg({ min: 1, max: 50 }).default(10).describe('At most this many (default 10, max 50)'),
    }),
    run: (args, ctx) =>
      runGithub(github, { what: args.workflow ? `${args.repo} workflow ${args.workflow}` : args.repo, write: false }, async (octokit) => {
        const filters = {
          ...splitRepo(args.repo),
          ...(args.branch ? { branch: args.branch } : {}),
          ...(args.status ? { status: args.status } : {}),
          per_page: args.limit,
          request: requestOptions(ctx, false),
        };
        const { data } = args.workflow
          ? await octokit.rest.actions.listWorkflowRuns({ ...filters, workflow_id: args.workflow })
          : await octokit.rest.actions.listWorkflowRunsForRepo(filters);
        const runs = data.workflow_runs.slice(0, args.limit).map(describeRun);
        return { status: 'ok', output: { repo: args.repo, totalCount: data.total_count, runs } };
      }),
  });
}
