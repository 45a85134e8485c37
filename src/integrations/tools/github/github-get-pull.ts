import { z } from 'zod';
import { requestOptions, runGithub } from '../../github/call.ts';
import type { Octokit } from '../../github/client.ts';
import { summarizeChecks } from '../../github/pull-checks.ts';
import { NumberArg, RepoSchema, splitRepo } from '../../github/repo-ref.ts';
import { defineTool } from '../define-tool.ts';
import { truncate } from '../limits.ts';

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({
  number: z.number(),
  url: z.string(),
  title: z.string(),
  state: z.string(),
  merged: z.boolean(),
  mergeable: z.boolean().nullable(),
  checks: z.object({
    state: z.string(),
    total: z.number(),
    failed: z.array(z.string()),
    pending: z.array(z.string()),
    unreadable: z.array(z.string()).optional(),
  }),
  readyToMerge: z.boolean(),
});

export function createGithubGetPullTool(github: Octokit | undefined) {
  return defineTool({
    name: 'github_get_pull',
    description:
      'Read one pull request with its mergeability and CI: mergeable (true/false/null while GitHub computes it), mergeableState (clean, blocked, dirty, unstable…), checks.state (success, failure, pending, none) with failed/pending check names, and readyToMerge. Use before github_merge_pull.',
    risk: 'read',
    output: Output,
    targets: ['repo', 'number'],
    input: z.object({ repo: RepoSchema, number: NumberArg.describe('Pull request number') }),
    run: (args, ctx) =>
      runGithub(github, { what: `${args.repo}#${args.number}`, write: false }, async (octokit) => {
        const { owner, repo } = splitRepo(args.repo);
        const request = requestOptions(ctx, false);
        const { data: pull } = await octokit.rest.pulls.get({ owner, repo, pull_number: args.number, request });
        const checks = await summarizeChecks(octokit, owner, repo, pull.head.sha, request);
        // Checks it could not read are vouched for only by GitHub's own verdict that required checks passed ("clean").
        const checksGood = (checks.state === 'success' || checks.state === 'none') && (!checks.unreadable || pull.mergeable_state === 'clean');
        const readyToMerge = pull.state === 'open' && !pull.draft && pull.mergeable === true && checksGood;
        return {
          status: 'ok',
          output: {
            number: pull.number,
            url: pull.html_url,
            title: pull.title,
            body: truncate(pull.body),
            state: pull.state,
            merged: pull.merged,
            draft: pull.draft ?? false,
            author: pull.user?.login ?? null,
            base: pull.base.ref,
            head: pull.head.ref,
            headSha: pull.head.sha,
            mergeable: pull.mergeable,
            mergeableState: pull.mergeable_state,
            checks,
            readyToMerge,
          },
        };
      }),
  });
}
