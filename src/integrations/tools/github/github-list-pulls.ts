import { z } from 'zod';
import { requestOptions, runGithub } from '../../github/call.ts';
import type { Octokit } from '../../github/client.ts';
import { RepoSchema, splitRepo } from '../../github/repo-ref.ts';
import { defineTool } from '../define-tool.ts';
import { numberArg } from '../number-arg.ts';

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({
  repo: z.string(),
  state: z.string(),
  base: z.string().optional(),
  /** How many are listed here (at most `limit`). */
  count: z.number(),
  /** Whether GitHub has more that match than the limit let through: `count` is then not how many there are. */
  more: z.boolean(),
  pulls: z.array(z.object({ number: z.number(), title: z.string(), url: z.string(), state: z.string() })),
});

export function createGithubListPullsTool(github: Octokit | undefined) {
  return defineTool({
    name: 'github_list_pulls',
    description:
      'List pull requests of a repository, newest first: number, title, url, author, base and head branches, draft flag. Use github_get_pull for mergeability and checks of one PR.',
    risk: 'read',
    output: Output,
    targets: ['repo', 'base'],
    input: z.object({
      repo: RepoSchema,
      state: z.enum(['open', 'closed', 'all']).default('open').describe('Default "open"'),
      base: z.string().min(1).optional().describe('Only PRs into this base branch, e.g. "main"'),
      limit: numberArg({ min: 1, max: 100 }).default(20).describe('At most this many (default 20, max 100)'),
    }),
    run: (args, ctx) =>
      runGithub(github, { what: args.repo, write: false }, async (octokit) => {
        // One more than asked, so the answer can say whether there are more (at 100, GitHub's page limit, its next link says).
        const { data, headers } = await octokit.rest.pulls.list({
          ...splitRepo(args.repo),
          state: args.state,
          ...(args.base ? { base: args.base } : {}),
          per_page: Math.min(args.limit + 1, 100),
          sort: 'created',
          direction: 'desc',
          request: requestOptions(ctx, false),
        });
        const pulls = data.slice(0, args.limit).map((pull) => ({
          number: pull.number,
          title: pull.title,
          url: pull.html_url,
          state: pull.state,
          draft: pull.draft ?? false,
          author: pull.user?.login ?? null,
          base: pull.base.ref,
          head: pull.head.ref,
          updatedAt: pull.updated_at,
        }));
        const more = data.length > args.limit || /rel="next"/.test(headers.link ?? '');
        return { status: 'ok', output: { repo: args.repo, state: args.state, ...(args.base ? { base: args.base } : {}), count: pulls.length, more, pulls } };
      }),
  });
}
