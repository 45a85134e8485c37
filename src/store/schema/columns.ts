import { customType, timestamp } from 'drizzle-orm/pg-core';
import { storableJson } from '../../agent/text/storable-text.ts';

export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * A `jsonb` column whose strings are made storable on the way in (src/agent/text/storable-text.ts): a NUL or a lone
 * surrogate in a tool's output or a Slack body would otherwise fail the whole write.
 */
export const jsonb = customType<{ data: unknown; driverData: unknown }>({
  dataType: () => 'jsonb',
  toDriver: (value) => storableJson(value),
  fromDriver: parseJsonLikeDrizzle,
});

/**
 * As drizzle's own jsonb reads a value: a driver may hand JSON back as text or already parsed, and a parsed
 * JSON string is text that need not be JSON at all, so a string is parsed where it can be and kept otherwise.
 */
function parseJsonLikeDrizzle(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
