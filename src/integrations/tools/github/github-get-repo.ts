import { z } from 'zod';
import { requestOptions, runGithub } from '../../github/call.ts';
import type { Octokit } from '../../github/client.ts';
import { RepoSchema, splitRepo } from '../../github/repo-ref.ts';
import { defineTool } from '../define-tool.ts';

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({ url: z.string(), fullName: z.string(), defaultBranch: z.string(), private: z.boolean(), archived: z.boolean() });

export function createGithubGetRepoTool(github: Octokit | undefined) {
  return defineTool({
    name: 'github_get_repo',
    description:
      'Read a GitHub repository: default branch, visibility, archived flag, open issue count, last push. Use to check a repo exists or find its default branch.',
    risk: 'read',
    output: Output,
    targets: ['repo'],
    input: z.object({ repo: RepoSchema }),
    run: (args, ctx) =>
      runGithub(github, { what: args.repo, write: false }, async (octokit) => {
        const { data } = await octokit.rest.repos.get({ ...splitRepo(args.repo), request: requestOptions(ctx, false) });
        return {
          status: 'ok',
          output: {
            url: data.html_url,
            fullName: data.full_name,
            description: data.description,
            defaultBranch: data.default_branch,
            private: data.private,
            archived: data.archived,
            openIssues: data.open_issues_count,
            pushedAt: data.pushed_at,
          },
        };
      }),
  });
}
