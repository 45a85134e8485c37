/**
 * The repositories a GitHub search reaches, read from its qualifiers: `repo:owner/name` names one,
 * `org:owner` or `user:owner` a whole account (`owner/*`). A query with none of them searches
 * everything the credentials can see (`'any'`). Negated qualifiers (`-repo:`) narrow nothing.
 */
const QUALIFIER = /(?:^|\s)(repo|org|user):("?)([A-Za-z0-9_./-]+)\2(?=\s|$)/gi;

export function searchQueryRepositories(query: string): readonly string[] | 'any' {
  const named: string[] = [];
  for (const match of query.matchAll(QUALIFIER)) {
    const kind = match[1]!.toLowerCase();
    const value = match[3]!;
    named.push(kind === 'repo' ? value : `${value}/*`);
  }
  return named.length ? named : 'any';
}
