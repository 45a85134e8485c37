/** Postgres SQLSTATE 23505, as raised by postgres-js and PGlite (possibly wrapped by drizzle). */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}
