import { z } from 'zod';
import { reconcileGithub, requestOptions, runGithub } from '../../github/call.ts';
import type { Octokit } from '../../github/client.ts';
import { findInPages } from '../../github/find-in-pages.ts';
import { withAttribution } from '../../github/attribution.ts';
import { hasMarker, sinceWithSkew, withMarker } from '../../github/marker.ts';
import { RepoSchema, splitRepo } from '../../github/repo-ref.ts';
import { defineTool } from '../define-tool.ts';
import { addedMentionRefusal, MENTION_ARGS, quietFilledMentions } from './github-mentions.ts';

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({ number: z.number(), url: z.string(), title: z.string() });

export function createGithubCreateIssueTool(github: Octokit | undefined) {
  return defineTool({
    name: 'github_create_issue',
    description: 'Open a new issue in a repository with a title and optional Markdown body, labels and assignees. Returns its number and url.',
    risk: 'write',
    output: Output,
    targets: ['repo'],
    input: z.object({
      repo: RepoSchema,
      title: z.string().min(1).max(256),
      body: z.string().max(60_000).optional().describe('Markdown body'),
      labels: z.array(z.string().min(1)).max(20).optional(),
      assignees: z.array(z.string().min(1)).max(10).optional().describe('GitHub logins'),
    }),
    // An @-mention notifies people: the plan's own are approved, one in a filled-in value is quieted, and one the
    // plan's text completes around a value is refused before anything is posted (decision 058).
    quoteFilled: quietFilledMentions(MENTION_ARGS.github_create_issue!),
    refuseFilled: (planned, filled) => addedMentionRefusal(MENTION_ARGS.github_create_issue!, planned, filled),
    run: (args, ctx) =>
      runGithub(github, { what: args.repo, write: true }, async (octokit) => {
        const { data } = await octokit.rest.issues.create({
          ...splitRepo(args.repo),
          title: args.title,
          body: withAttribution(withMarker(args.body, ctx.marker), ctx.attribution),
          ...(args.labels ? { labels: args.labels } : {}),
          ...(args.assignees ? { assignees: args.assignees } : {}),
          request: requestOptions(ctx, true),
        });
        return { status: 'ok', output: { number: data.number, url: data.html_url, title: data.title } };
      }),
    reconcile: (args, ctx) =>
      reconcileGithub(github, `issues of ${args.repo}`, async (octokit) => {
        // `since` filters on update time, which is never before creation: a safe lower bound.
        const pages = octokit.paginate.iterator(octokit.rest.issues.listForRepo, {
          ...splitRepo(args.repo),
          state: 'all',
          since: sinceWithSkew(ctx.startedAt).toISOString(),
          sort: 'created',
          direction: 'desc',
          per_page: 100,
          request: requestOptions(ctx, false),
        });
        const search = await findInPages(pages, (item) => !item.pull_request && hasMarker(item.body, ctx.marker));
        if (search.found) return { status: 'done', output: { number: search.found.number, url: search.found.html_url, title: search.found.title } };
        return search.exhausted
          ? { status: 'not-done' }
          : { status: 'unknown', reason: `too many issues in ${args.repo} changed since the step started to be sure` };
      }),
  });
}
