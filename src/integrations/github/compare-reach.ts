/**
 * The repositories a compare reaches. Its base and head are refs of `repo`, but GitHub also reads
 * `user:branch` (the branch of that user's fork) and `owner:repo:branch` there, which reach another
 * repository through an allowed one. A git ref name cannot hold `:` (git check-ref-format), so any `:`
 * is that cross-repository form: under TANDEM_REPOS it is refused as a reach the list cannot judge (a
 * fork's name need not be the repository's), before the plan is approved or, filled in, before it runs.
 */
import type { RepositoryReach } from '../../agent/ports/tool.ts';

const REFS = ['base', 'head'] as const;

/** Given args as planned or filled, so nothing about their shape is trusted. */
export function compareReach(args: Record<string, unknown>): RepositoryReach {
  for (const name of REFS) {
    const ref = args[name];
    if (typeof ref === 'string' && ref.includes(':'))
      return {
        unreadable: `${name} ${JSON.stringify(ref)} names a ref of another repository (GitHub's cross-fork user:branch or owner:repo:branch form); compare two refs of the repository itself`,
      };
  }
  const repo = args.repo;
  // A reference standing for the repository is judged once filled (planned args are read with it blanked).
  if (typeof repo !== 'string' || repo.trim() === '') return { unreadable: 'a repository is written as owner/name text' };
  return [repo];
}
