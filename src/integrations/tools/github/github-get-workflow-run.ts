import { z } from 'zod';
import { requestOptions, runGithub } from '../../github/call.ts';
import type { Octokit } from '../../github/client.ts';
import { NumberArg, RepoSchema, splitRepo } from '../../github/repo-ref.ts';
import { describeRun } from '../../github/workflow-runs.ts';
import { WorkflowRunSchema } from '../../github/workflow-runs.ts';
import { defineTool } from '../define-tool.ts';

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = WorkflowRunSchema;

export function createGithubGetWorkflowRunTool(github: Octokit | undefined) {
  return defineTool({
    name: 'github_get_workflow_run',
    description:
      'Read one GitHub Actions workflow run by id: status (queued, in_progress, completed), conclusion (success, failure, cancelled…), branch, commit and url.',
    risk: 'read',
    output: Output,
    targets: ['repo', 'runId'],
    input: z.object({ repo: RepoSchema, runId: NumberArg.describe('Workflow run id (from github_list_workflow_runs or a dispatch)') }),
    run: (args, ctx) =>
      runGithub(github, { what: `${args.repo} workflow run ${args.runId}`, write: false }, async (octokit) => {
        const { data } = await octokit.rest.actions.getWorkflowRun({ ...splitRepo(args.repo), run_id: args.runId, request: requestOptions(ctx, false) });
        return { status: 'ok', output: describeRun(data) };
      }),
  });
}
