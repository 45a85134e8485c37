import { lt } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { slackEventsSeen } from '../schema.ts';

/** True the first time an event id is seen; Slack's retries of the same event get false. */
export async function markSlackEventSeen(db: Db, eventId: string): Promise<boolean> {
  const rows = await db.insert(slackEventsSeen).values({ eventId }).onConflictDoNothing().returning({ eventId: slackEventsSeen.eventId });
  return rows.length === 1;
}

/** Slack stops retrying after minutes; a day of ids is plenty. */
export async function forgetSlackEventsBefore(db: Db, before: Date): Promise<void> {
  await db.delete(slackEventsSeen).where(lt(slackEventsSeen.seenAt, before));
}
