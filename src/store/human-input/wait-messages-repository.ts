/** Where each wait's message was posted: one row per wait, replaced by each newer post of it. */
import { asc, eq, sql } from 'drizzle-orm';
import type { WaitMessageRecord } from '../../agent/ports/run-store.ts';
import type { Db } from '../database.ts';
import { waitMessages } from '../schema.ts';

export async function upsertWaitMessage(db: Db, input: Omit<WaitMessageRecord, 'postedAt'>): Promise<void> {
  const { channel, ts, permalink } = input;
  await db
    .insert(waitMessages)
    .values(input)
    .onConflictDoUpdate({ target: [waitMessages.runId, waitMessages.wait, waitMessages.key], set: { channel, ts, permalink, postedAt: sql`now()` } });
}

export async function selectWaitMessages(db: Db, runId: string): Promise<WaitMessageRecord[]> {
  return db.select().from(waitMessages).where(eq(waitMessages.runId, runId)).orderBy(asc(waitMessages.postedAt), asc(waitMessages.key));
}
