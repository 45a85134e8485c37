import type { SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { storableJson } from '../../agent/text/storable-text.ts';

/**
 * Runs a raw statement and returns its rows on either engine: postgres-js gives an array, PGlite
 * `{ rows }`. Kept for the few hot statements the query builder cannot express in one round trip.
 */
export async function rawRows<T>(db: Db, statement: SQL): Promise<T[]> {
  return rowsOf<T>(await db.execute(statement));
}

/** The rows of a raw statement's result, on either engine. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

/** A timestamp column as a raw statement returns it: a Date from postgres-js, sometimes text from PGlite. */
export function asDate(value: Date | string): Date;
export function asDate(value: Date | string | null): Date | null;
export function asDate(value: Date | string | null): Date | null {
  return value === null ? null : value instanceof Date ? value : new Date(value);
}

/** A JSON parameter for a `::jsonb` cast; null stays SQL NULL. */
export const jsonParam = (value: unknown) => (value === null || value === undefined ? null : storableJson(value));
