/** True when the error, or any error it wraps (`cause`, as drizzle wraps the driver's), carries this Postgres SQLSTATE. */
function hasSqlState(error: unknown, state: string): boolean {
  for (let e: unknown = error; e !== null && typeof e === 'object'; e = 'cause' in e ? e.cause : undefined) {
    if ('code' in e && e.code === state) return true;
  }
  return false;
}

/** SQLSTATE 23505, as raised by postgres-js and PGlite: a unique key already holds the value. */
export const isUniqueViolation = (error: unknown): boolean => hasSqlState(error, '23505');

/** SQLSTATE 23503: the referenced row is gone. */
export const isForeignKeyViolation = (error: unknown): boolean => hasSqlState(error, '23503');
