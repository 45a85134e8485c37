import { eq, sql } from 'drizzle-orm';
import type { Db } from './database.ts';
import { runFeedback } from './schema.ts';

export type FeedbackValue = 'good' | 'bad';

export interface FeedbackRecord {
  runId: string;
  userId: string;
  value: FeedbackValue;
  planVersion: number;
  authorKind: string;
  authorId: string;
  createdAt: Date;
}

/** True the first time this person gives feedback on this run (any summary, any replica); false after. */
export async function recordFeedback(db: Db, input: Omit<FeedbackRecord, 'createdAt'>): Promise<boolean> {
  const rows = await db.insert(runFeedback).values(input).onConflictDoNothing().returning({ runId: runFeedback.runId });
  return rows.length === 1;
}

export async function listFeedback(db: Db, runId: string): Promise<FeedbackRecord[]> {
  const rows = await db.select().from(runFeedback).where(eq(runFeedback.runId, runId)).orderBy(runFeedback.createdAt);
  return rows.map((row) => ({ ...row, value: row.value === 'good' ? 'good' : 'bad' }));
}

/** Good and bad counts per plan author (`planner` model or `runbook` name), for `tandem eval --feedback`. */
export async function feedbackByAuthor(
  db: Db,
  filter: { authorKind?: string } = {},
): Promise<{ authorKind: string; authorId: string; good: number; bad: number }[]> {
  const rows = await db
    .select({
      authorKind: runFeedback.authorKind,
      authorId: runFeedback.authorId,
      good: sql<number>`count(*) filter (where ${runFeedback.value} = 'good')`.mapWith(Number),
      bad: sql<number>`count(*) filter (where ${runFeedback.value} = 'bad')`.mapWith(Number),
    })
    .from(runFeedback)
    .where(filter.authorKind ? eq(runFeedback.authorKind, filter.authorKind) : undefined)
    .groupBy(runFeedback.authorKind, runFeedback.authorId)
    .orderBy(runFeedback.authorKind, runFeedback.authorId);
  return rows;
}
