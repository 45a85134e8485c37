/**
 * The repositories a GitHub search reaches (`owner/name`, or `owner/*` for an account named by `org:` or
 * `user:`), as the tool port states them: `'any'` when the query is not bounded to some, and the reason
 * when it cannot be read (see search-query.ts).
 */
import { searchReach } from './search-query.ts';

export function searchQueryRepositories(query: string): readonly string[] | 'any' | { unreadable: string } {
  const reach = searchReach(query);
  return 'unreadable' in reach ? reach : reach.repositories;
}
