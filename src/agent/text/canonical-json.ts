/**
 * JSON with object keys sorted, for comparing values: the store may give an object's keys back in
 * another order than they were written. `undefined` reads as "undefined" so it still compares.
 */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) =>
      inner && typeof inner === 'object' && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b))) : inner,
    ) ?? 'undefined'
  );
}
