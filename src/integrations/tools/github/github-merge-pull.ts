import { z } from 'zod';
import { mergeCommitMessage } from '../../github/attribution.ts';
import { reconcileGithub, requestOptions, runGithub } from '../../github/call.ts';
import type { Octokit } from '../../github/client.ts';
import { NumberArg, RepoSchema, splitRepo } from '../../github/repo-ref.ts';
import { defineTool } from '../define-tool.ts';

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({ number: z.number(), url: z.string(), merged: z.boolean(), sha: z.string().nullable() });

export function createGithubMergePullTool(github: Octokit | undefined) {
  return defineTool({
    name: 'github_merge_pull',
    description:
      'Merge a pull request (method merge, squash or rebase; default merge). Fails with a clear message when GitHub says it is not mergeable (conflicts, failing required checks, missing reviews). Check it first with github_get_pull.',
    risk: 'destructive',
    output: Output,
    targets: ['repo', 'number'],
    input: z.object({
      repo: RepoSchema,
      number: NumberArg.describe('Pull request number'),
      method: z.enum(['merge', 'squash', 'rebase']).default('merge'),
    }),
    run: (args, ctx) =>
      runGithub(
        github,
        {
          what: `${args.repo}#${args.number}`,
          write: true,
          statusMessages: {
            405: 'pull request is not mergeable (conflicts, required checks or reviews)',
            409: 'pull request head changed while merging; check it again before retrying',
          },
        },
        async (octokit) => {
          const target = { ...splitRepo(args.repo), pull_number: args.number };
          // A rebase makes no merge commit, so it has no message to carry the trailers.
          const message = ctx.attribution && args.method !== 'rebase' ? { commit_message: mergeCommitMessage(ctx.attribution) } : {};
          const { data } = await octokit.rest.pulls.merge({ ...target, merge_method: args.method, ...message, request: requestOptions(ctx, true) });
          const { data: pull } = await octokit.rest.pulls.get({ ...target, request: requestOptions(ctx, false) });
          return { status: 'ok', output: { number: args.number, url: pull.html_url, merged: data.merged, sha: data.sha, message: data.message } };
        },
      ),
    reconcile: (args, ctx) =>
      reconcileGithub(github, `${args.repo}#${args.number}`, async (octokit) => {
        const { data: pull } = await octokit.rest.pulls.get({ ...splitRepo(args.repo), pull_number: args.number, request: requestOptions(ctx, false) });
        if (!pull.merged) return { status: 'not-done' };
        return {
          status: 'done',
          output: { number: args.number, url: pull.html_url, merged: true, sha: pull.merge_commit_sha, message: 'Pull Request successfully merged' },
        };
      }),
    check: (output) => (output['merged'] === true ? { ok: true } : { ok: false, reason: 'GitHub did not report the pull request as merged' }),
  });
}
