import { z } from 'zod';
import { reconcileGithub, requestOptions, runGithub } from '../../github/call.ts';
import type { Octokit } from '../../github/client.ts';
import { withAttribution } from '../../github/attribution.ts';
import { hasMarker, sinceWithSkew, withMarker } from '../../github/marker.ts';
import { RepoSchema, splitRepo } from '../../github/repo-ref.ts';
import { defineTool } from '../define-tool.ts';
import { addedMentionRefusal, MENTION_ARGS, quietFilledMentions } from './github-mentions.ts';
import { BooleanArg } from '../boolean-arg.ts';

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({ releaseId: z.number(), url: z.string(), tag: z.string(), draft: z.boolean().nullable().optional() });

export function createGithubCreateReleaseTool(github: Octokit | undefined) {
  return defineTool({
    name: 'github_create_release',
    description:
      'Create a GitHub release for a tag (the tag is created from `target` when it does not exist yet). Optional name, Markdown body (release notes), draft and prerelease flags. Returns its url, id and tag.',
    risk: 'write',
    output: Output,
    targets: ['repo', 'tag', 'target'],
    input: z.object({
      repo: RepoSchema,
      tag: z.string().min(1).max(200).describe('Tag name, e.g. "v1.4.0"'),
      name: z.string().max(200).optional(),
      body: z.string().max(100_000).optional().describe('Release notes in Markdown'),
      target: z.string().min(1).optional().describe('Branch or SHA the new tag points at; default the default branch'),
      draft: BooleanArg.optional().describe('Save as a draft, not published (default false)'),
      prerelease: BooleanArg.optional().describe('Mark as a prerelease (default false)'),
    }),
    // An @-mention notifies people: the plan's own are approved, one in a filled-in value is quieted, and one the
    // plan's text completes around a value is refused before anything is posted (decision 058).
    quoteFilled: quietFilledMentions(MENTION_ARGS.github_create_release!),
    refuseFilled: (planned, filled) => addedMentionRefusal(MENTION_ARGS.github_create_release!, planned, filled),
    run: (args, ctx) =>
      runGithub(github, { what: `${args.repo} release ${args.tag}`, write: true }, async (octokit) => {
        const { data } = await octokit.rest.repos.createRelease({
          ...splitRepo(args.repo),
          tag_name: args.tag,
          ...(args.name !== undefined ? { name: args.name } : {}),
          body: withAttribution(withMarker(args.body, ctx.marker), ctx.attribution),
          ...(args.target ? { target_commitish: args.target } : {}),
          ...(args.draft !== undefined ? { draft: args.draft } : {}),
          ...(args.prerelease !== undefined ? { prerelease: args.prerelease } : {}),
          request: requestOptions(ctx, true),
        });
        return { status: 'ok', output: { releaseId: data.id, url: data.html_url, tag: data.tag_name, draft: data.draft } };
      }),
    // Drafts are invisible to get-release-by-tag, so list releases and match the tag.
    reconcile: (args, ctx) =>
      reconcileGithub(github, `${args.repo} release ${args.tag}`, async (octokit) => {
        const { data } = await octokit.rest.repos.listReleases({ ...splitRepo(args.repo), per_page: 100, request: requestOptions(ctx, false) });
        const release = data.find((item) => item.tag_name === args.tag);
        if (!release) return { status: 'not-done' };
        const ours = hasMarker(release.body, ctx.marker) || Date.parse(release.created_at) >= sinceWithSkew(ctx.startedAt).getTime();
        if (!ours) return { status: 'unknown', reason: `a release for ${args.tag} already existed before this step started: ${release.html_url}` };
        return { status: 'done', output: { releaseId: release.id, url: release.html_url, tag: release.tag_name, draft: release.draft } };
      }),
  });
}
