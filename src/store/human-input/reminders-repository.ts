import type { Db } from '../database.ts';
import { reminders } from '../schema.ts';

/**
 * True for exactly one caller per (run, kind, key), across every replica on the database: the
 * caller that gets true sends the reminder, the others stay quiet.
 */
export async function claimReminder(db: Db, input: { runId: string; kind: string; key: string }): Promise<boolean> {
  const rows = await db.insert(reminders).values(input).onConflictDoNothing().returning({ runId: reminders.runId });
  return rows.length === 1;
}
