import { z } from 'zod';

export const RepoSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'expected owner/name, e.g. acme/api')
  .describe('Repository as owner/name, e.g. "acme/api"');

export function splitRepo(repo: string): { owner: string; repo: string } {
  const [owner = '', name = ''] = repo.split('/');
  return { owner, repo: name };
}

/**
 * Issue, pull and run numbers. Numeric strings are accepted because a plan fills
 * `{{steps.s1.output.number}}` into args as text.
 */
export const NumberArg = z.coerce.number().int().positive();
