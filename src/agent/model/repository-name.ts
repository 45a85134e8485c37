/**
 * How GitHub spells a repository: `owner/name`. The owner is letters, digits and hyphens, not starting
 * with a hyphen, at most 39 long; the name is letters, digits, `.`, `_` and `-`, at most 100 long, and
 * never `.` or `..`. Anything else is refused before it is judged or sent: octokit writes owner and name
 * into the URL path, where `acme/..` would climb out of `/repos/acme/` (`/repos/acme/../pulls/7` is
 * `/repos/pulls/7`), and the allow-list would read it as a repository of `acme`.
 */

const OWNER = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/;
const NAME = /^[A-Za-z0-9._-]{1,100}$/;

export function isRepositoryOwner(owner: string): boolean {
  return OWNER.test(owner);
}

export function isRepositoryName(name: string): boolean {
  return NAME.test(name) && name !== '.' && name !== '..';
}

/** `owner/name` as GitHub would accept it. */
export function isRepository(repository: string): boolean {
  const parts = repository.split('/');
  return parts.length === 2 && isRepositoryOwner(parts[0]!) && isRepositoryName(parts[1]!);
}

/** What is wrong with `repository` as a person can fix it; null when GitHub would accept it. */
export function repositoryProblem(repository: string): string | null {
  if (isRepository(repository)) return null;
  const parts = repository.split('/');
  if (parts.length !== 2) return 'expected owner/name, e.g. acme/api';
  const [owner, name] = parts as [string, string];
  if (!isRepositoryOwner(owner)) return 'the owner must be letters, digits or hyphens (not starting with a hyphen), at most 39';
  if (name === '.' || name === '..') return 'the name cannot be "." or ".."';
  return 'the name must be letters, digits, ".", "_" or "-", at most 100';
}
