import { z } from 'zod';
import { requestOptions, runGithub } from '../../github/call.ts';
import type { Octokit } from '../../github/client.ts';
import { compareReach } from '../../github/compare-reach.ts';
import { RepoSchema, splitRepo } from '../../github/repo-ref.ts';
import { defineTool } from '../define-tool.ts';
import { firstLine } from '../limits.ts';

const MAX_COMMITS = 50;
const MAX_FILES = 100;

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({
  url: z.string(),
  status: z.string(),
  aheadBy: z.number(),
  behindBy: z.number(),
  totalCommits: z.number(),
  commits: z.array(z.object({ sha: z.string(), message: z.string(), author: z.string().nullable(), url: z.string() })),
  files: z.array(z.object({ filename: z.string(), status: z.string(), additions: z.number(), deletions: z.number() })),
  filesTruncated: z.boolean(),
});

export function createGithubCompareTool(github: Octokit | undefined) {
  return defineTool({
    name: 'github_compare',
    description:
      'Compare two refs (branches, tags or SHAs) of a repository: ahead/behind counts, the commits in head not in base (first lines), and changed files. Use to write release notes or check what a deploy would ship.',
    risk: 'read',
    output: Output,
    targets: ['repo', 'base', 'head'],
    // Not only `repo`: a cross-fork base or head (`user:branch`) reads another repository (compare-reach.ts).
    repositories: compareReach,
    input: z.object({
      repo: RepoSchema,
      base: z.string().min(1).describe('Older ref, e.g. a tag "v1.2.0" or branch "main"'),
      head: z.string().min(1).describe('Newer ref, e.g. "main" or a SHA'),
    }),
    run: (args, ctx) =>
      runGithub(github, { what: `${args.repo} ${args.base}...${args.head}`, write: false }, async (octokit) => {
        const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
          ...splitRepo(args.repo),
          basehead: `${args.base}...${args.head}`,
          per_page: MAX_COMMITS,
          request: requestOptions(ctx, false),
        });
        const files = data.files ?? [];
        return {
          status: 'ok',
          output: {
            url: data.html_url,
            status: data.status,
            aheadBy: data.ahead_by,
            behindBy: data.behind_by,
            totalCommits: data.total_commits,
            commits: data.commits.slice(-MAX_COMMITS).map((commit) => ({
              sha: commit.sha,
              message: firstLine(commit.commit.message),
              author: commit.author?.login ?? commit.commit.author?.name ?? null,
              url: commit.html_url,
            })),
            files: files
              .slice(0, MAX_FILES)
              .map((file) => ({ filename: file.filename, status: file.status, additions: file.additions, deletions: file.deletions })),
            filesTruncated: files.length > MAX_FILES,
          },
        };
      }),
  });
}
