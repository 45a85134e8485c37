import { timestamp } from 'drizzle-orm/pg-core';

export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
