import { z } from 'zod';
import { requestOptions, runGithub } from '../../github/call.ts';
import type { Octokit } from '../../github/client.ts';
import { searchReach } from '../../github/search-qualifiers.ts';
import { defineTool } from '../define-tool.ts';
import { numberArg } from '../number-arg.ts';

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({
  query: z.string(),
  totalCount: z.number(),
  incomplete: z.boolean(),
  items: z.array(z.object({ number: z.number(), title: z.string(), url: z.string(), repo: z.string(), isPull: z.boolean() })),
});

export function createGithubSearchIssuesTool(github: Octokit | undefined) {
  return defineTool({
    name: 'github_search_issues',
    description:
      'Search issues and pull requests with GitHub search syntax, e.g. "repo:acme/api is:issue is:open label:bug" or "repo:acme/api is:pr is:merged merged:>2024-01-01". Returns number, title, url, state, repo and labels per hit.',
    risk: 'read',
    output: Output,
    targets: ['query'],
    // The allow-list judges a search by its whole query (search-query.ts): unbounded reaches any repository, unreadable is refused.
    repositories: (args) => (typeof args.query === 'string' ? searchReach(args.query) : 'any'),
    input: z.object({
      query: z.string().min(1).max(256).describe('GitHub search query; include repo:owner/name to stay in one repository'),
      limit: numberArg({ min: 1, max: 50 }).default(20).describe('At most this many (default 20, max 50)'),
    }),
    run: (args, ctx) =>
      runGithub(github, { what: `search "${args.query}"`, write: false }, async (octokit) => {
        const { data } = await octokit.request('GET /search/issues', { q: args.query, per_page: args.limit, request: requestOptions(ctx, false) });
        const items = data.items.slice(0, args.limit).map((item) => ({
          number: item.number,
          title: item.title,
          url: item.html_url,
          state: item.state,
          repo: item.repository_url.split('/').slice(-2).join('/'),
          isPull: item.pull_request !== undefined,
          labels: item.labels.map((label) => (typeof label === 'string' ? label : label.name)).filter((name): name is string => Boolean(name)),
          author: item.user?.login ?? null,
          updatedAt: item.updated_at,
        }));
        return { status: 'ok', output: { query: args.query, totalCount: data.total_count, incomplete: data.incomplete_results, items } };
      }),
  });
}
