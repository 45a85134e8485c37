/**
 * Repository names as GitHub accepts them. An owner is letters, digits and single hyphens inside (an
 * underscore too, for managed users), at most 39; a name is letters, digits, `.`, `_` and `-`, at most
 * 100, and never `.` or `..`. Anything else is refused before it is judged or sent: `acme/..` matched
 * `acme/*` and became `/repos/pulls/7/merge` in a request's path.
 */
const OWNER = /^[A-Za-z0-9_](?:[A-Za-z0-9_]|-(?=[A-Za-z0-9_])){0,38}$/;
const NAME = /^[A-Za-z0-9._-]{1,100}$/;

export function isAccountName(owner: string): boolean {
  return OWNER.test(owner);
}

export function isRepositoryName(repository: string): boolean {
  const parts = repository.split('/');
  if (parts.length !== 2) return false;
  const [owner = '', name = ''] = parts;
  return isAccountName(owner) && NAME.test(name) && name !== '.' && name !== '..';
}
