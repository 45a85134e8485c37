import { z } from 'zod';
import { repositoryProblem } from '../../agent/model/repository-name.ts';
import { numberArg } from '../tools/number-arg.ts';

/** GitHub's own spelling rules (repository-name.ts): a name GitHub would refuse, or `acme/..`, never reaches a URL. */
export const RepoSchema = z
  .string()
  // The pattern is what a model is shown of the arg; the check after it is the whole rule (`.` and `..` too).
  .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/, 'expected owner/name as GitHub spells it, e.g. acme/api')
  .superRefine((repo, ctx) => {
    const problem = repositoryProblem(repo);
    if (problem) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(repo)} is not a repository GitHub accepts: ${problem}` });
  })
  .describe('Repository as owner/name, e.g. "acme/api"');

export function splitRepo(repo: string): { owner: string; repo: string } {
  const [owner = '', name = ''] = repo.split('/');
  return { owner, repo: name };
}

/**
 * Issue, pull and run numbers: the shared numeric arg (number-arg.ts), which also takes a person's
 * answer "666" or "#666" filled in from an earlier step, and refuses any other text.
 */
export const NumberArg = numberArg({ min: 1, max: Number.MAX_SAFE_INTEGER, hash: true });
