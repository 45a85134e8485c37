/**
 * The repositories a GitHub search reaches, as search-query.ts reads its whole query: the repositories
 * and accounts (`owner/*`) it names, `'any'` when nothing bounds it, or why it cannot be judged.
 */
import type { RepositoryReach } from '../../agent/ports/tool.ts';
import { searchQueryReach } from './search-query.ts';

export function searchReach(query: string): RepositoryReach {
  const reach = searchQueryReach(query);
  return reach.ok ? reach.repositories : { unreadable: reach.problem };
}

/** For choosing a GitHub App installation: the names a query holds, or `'any'` (also when it cannot be read). */
export function searchQueryRepositories(query: string): readonly string[] | 'any' {
  const reach = searchReach(query);
  return Array.isArray(reach) ? reach : 'any';
}
