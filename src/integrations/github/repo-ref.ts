import { z } from 'zod';
import { repositoryProblem } from '../../agent/model/repository-name.ts';

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
 * Issue, pull and run numbers. A plan may fill one from an earlier step's output as a whole-value
 * reference, which keeps the output's type: a number passes as it is, and text passes only when it
 * is one number written plainly (digits, an optional leading `#`, surrounding spaces) — a person's
 * answer "666" or "#666". Anything else is refused rather than read as some number: blind coercion
 * turns "1e3" into 1000, "0x29a" into 666, and "" or true into a number too.
 */
export const NumberArg = z
  .union(
    [
      z.number(),
      z
        .string()
        .regex(/^\s*#?\d{1,15}\s*$/, 'expected a number such as 42 (digits only)')
        .transform((text) => Number(text.replace(/[\s#]/g, ''))),
    ],
    { error: 'expected a number such as 42 (digits only)' },
  )
  .pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER));
