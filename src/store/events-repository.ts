import { asc, eq, sql } from 'drizzle-orm';
import type { RunEvent } from '../agent/ports/run-store.ts';
import type { Db } from './database.ts';
import { events, runs } from './schema.ts';

/**
 * Bumping the run's counter and inserting the event in one transaction serialises appends per run
 * on the run row's lock, so sequence numbers are gap-free and match commit order.
 */
export async function appendEvent(db: Db, runId: string, type: string, data: Record<string, unknown> = {}): Promise<RunEvent> {
  return db.transaction(async (tx) => {
    const [counter] = await tx
      .update(runs)
      .set({ eventSeq: sql`${runs.eventSeq} + 1` })
      .where(eq(runs.id, runId))
      .returning({ seq: runs.eventSeq });
    if (!counter) throw new Error(`run ${runId} not found`);
    const [row] = await tx.insert(events).values({ runId, seq: counter.seq, type, data }).returning();
    return { runId: row!.runId, seq: row!.seq, type: row!.type, data: row!.data, at: row!.at };
  });
}

export async function selectEvents(db: Db, runId: string): Promise<RunEvent[]> {
  const rows = await db.select().from(events).where(eq(events.runId, runId)).orderBy(asc(events.seq));
  return rows.map((row) => ({ runId: row.runId, seq: row.seq, type: row.type, data: row.data, at: row.at }));
}
