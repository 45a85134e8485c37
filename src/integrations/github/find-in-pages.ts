/** Pages a reconcile reads at most; past that, "not found" is no longer a safe answer. */
export const MAX_RECONCILE_PAGES = 5;

export type PageSearch<T> = { found: T } | { found: undefined; exhausted: boolean };

/**
 * Looks through up to `maxPages` pages of a listing. `exhausted: false` means the listing went on
 * beyond what we read, so the caller must answer "unknown", not "not done".
 */
export async function findInPages<T>(
  pages: AsyncIterable<{ data: T[] }>,
  matches: (item: T) => boolean,
  maxPages = MAX_RECONCILE_PAGES,
): Promise<PageSearch<T>> {
  let read = 0;
  for await (const page of pages) {
    const found = page.data.find(matches);
    if (found !== undefined) return { found };
    read += 1;
    if (read >= maxPages) return { found: undefined, exhausted: false };
  }
  return { found: undefined, exhausted: true };
}
