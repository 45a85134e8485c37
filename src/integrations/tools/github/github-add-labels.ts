import { z } from 'zod';
import { reconcileGithub, requestOptions, runGithub } from '../../github/call.ts';
import type { Octokit } from '../../github/client.ts';
import { NumberArg, RepoSchema, splitRepo } from '../../github/repo-ref.ts';
import { defineTool } from '../define-tool.ts';

function labelNames(labels: readonly (string | { name?: string })[]): string[] {
  return labels.map((label) => (typeof label === 'string' ? label : (label.name ?? ''))).filter(Boolean);
}

/** What the step records; the evaluator checks it, and later steps may reference any of these fields. */
const Output = z.object({ number: z.number(), url: z.string(), labels: z.array(z.string()) });

export function createGithubAddLabelsTool(github: Octokit | undefined) {
  return defineTool({
    name: 'github_add_labels',
    description: 'Add labels to an issue or pull request (labels it already has are kept). Returns its url and all its labels after the change.',
    risk: 'write',
    output: Output,
    targets: ['repo', 'number'],
    input: z.object({
      repo: RepoSchema,
      number: NumberArg.describe('Issue or pull request number'),
      labels: z.array(z.string().min(1).max(50)).min(1).max(20),
    }),
    run: (args, ctx) =>
      runGithub(github, { what: `${args.repo}#${args.number}`, write: true }, async (octokit) => {
        const target = { ...splitRepo(args.repo), issue_number: args.number };
        const { data: labels } = await octokit.rest.issues.addLabels({ ...target, labels: args.labels, request: requestOptions(ctx, true) });
        const { data: issue } = await octokit.rest.issues.get({ ...target, request: requestOptions(ctx, false) });
        return { status: 'ok', output: { number: args.number, url: issue.html_url, labels: labelNames(labels) } };
      }),
    // Adding a label twice is harmless, but "done" must still mean every asked-for label is there.
    reconcile: (args, ctx) =>
      reconcileGithub(github, `${args.repo}#${args.number}`, async (octokit) => {
        const { data: issue } = await octokit.rest.issues.get({ ...splitRepo(args.repo), issue_number: args.number, request: requestOptions(ctx, false) });
        const present = labelNames(issue.labels);
        const wanted = args.labels.map((label) => label.toLowerCase());
        const all = wanted.every((label) => present.some((name) => name.toLowerCase() === label));
        return all ? { status: 'done', output: { number: args.number, url: issue.html_url, labels: present } } : { status: 'not-done' };
      }),
  });
}
