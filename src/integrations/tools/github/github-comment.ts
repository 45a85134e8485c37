import { z } from 'zod';
import { reconcileGithub, requestOptions, runGithub } from '../../github/call.ts';
import type { Octokit } from '../../github/client.ts';
import { findInPages } from '../../github/find-in-pages.ts';
import { withAttribution } from '../../github/attribution.ts';
import { hasMarker, sinceWithSkew, withMarker } from '../../github/marker.ts';
import { NumberArg, RepoSchema, splitRepo } from '../../github/repo-ref.ts';
import { defineTool } from '../define-tool.ts';
import { addedMentionRefusal, MENTION_ARGS, quietFilledMentions } from './github-mentions.ts';

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({ number: z.number(), commentId: z.number(), url: z.string() });

export function createGithubCommentTool(github: Octokit | undefined) {
  return defineTool({
    name: 'github_comment',
    description: 'Add a Markdown comment to an issue or pull request. Returns the comment url and id.',
    risk: 'write',
    output: Output,
    targets: ['repo', 'number'],
    input: z.object({
      repo: RepoSchema,
      number: NumberArg.describe('Issue or pull request number'),
      body: z.string().min(1).max(60_000).describe('Markdown comment'),
    }),
    // An @-mention notifies people: the plan's own are approved, one in a filled-in value is quieted, and one the
    // plan's text completes around a value is refused before anything is posted (decision 058).
    quoteFilled: quietFilledMentions(MENTION_ARGS.github_comment!),
    refuseFilled: (planned, filled) => addedMentionRefusal(MENTION_ARGS.github_comment!, planned, filled),
    run: (args, ctx) =>
      runGithub(github, { what: `${args.repo}#${args.number}`, write: true }, async (octokit) => {
        const { data } = await octokit.rest.issues.createComment({
          ...splitRepo(args.repo),
          issue_number: args.number,
          body: withAttribution(withMarker(args.body, ctx.marker), ctx.attribution),
          request: requestOptions(ctx, true),
        });
        return { status: 'ok', output: { number: args.number, commentId: data.id, url: data.html_url } };
      }),
    reconcile: (args, ctx) =>
      reconcileGithub(github, `comments of ${args.repo}#${args.number}`, async (octokit) => {
        const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, {
          ...splitRepo(args.repo),
          issue_number: args.number,
          since: sinceWithSkew(ctx.startedAt).toISOString(),
          per_page: 100,
          request: requestOptions(ctx, false),
        });
        const search = await findInPages(pages, (item) => hasMarker(item.body, ctx.marker));
        if (search.found) return { status: 'done', output: { number: args.number, commentId: search.found.id, url: search.found.html_url } };
        return search.exhausted
          ? { status: 'not-done' }
          : { status: 'unknown', reason: `too many comments on ${args.repo}#${args.number} since the step started to be sure` };
      }),
  });
}
