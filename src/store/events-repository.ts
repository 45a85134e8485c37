import { asc, eq, sql } from 'drizzle-orm';
import { jsonParam, rawRows } from './raw-rows.ts';
import { parseRunEvent, type RunEvent } from '../agent/run-events.ts';
import type { Db } from './database.ts';
import { events } from './schema.ts';

/**
 * Bumping the run's counter and inserting the event in one statement serialises appends per run on
 * the run row's lock, so sequence numbers are gap-free and match commit order — in one round trip.
 */
export async function appendEvent(db: Db, runId: string, type: string, data: Record<string, unknown> = {}): Promise<RunEvent> {
  const [row] = await rawRows<{ run_id: string; seq: number; type: string; data: Record<string, unknown>; at: Date | string }>(
    db,
    sql`with counter as (
          update runs set event_seq = event_seq + 1 where id = ${runId} returning event_seq
        )
        insert into events (run_id, seq, type, data)
        select ${runId}, event_seq, ${type}, ${jsonParam(data)}::jsonb from counter
        returning run_id, seq, type, data, at`,
  );
  if (!row) throw new Error(`run ${runId} not found`);
  return parseRunEvent({ runId: row.run_id, seq: Number(row.seq), type: row.type, data: row.data, at: row.at instanceof Date ? row.at : new Date(row.at) });
}

export async function selectEvents(db: Db, runId: string): Promise<RunEvent[]> {
  const rows = await db.select().from(events).where(eq(events.runId, runId)).orderBy(asc(events.seq));
  // Parsed by each type's schema; a row an older version wrote in another shape reads as an `unknown` event.
  return rows.map(parseRunEvent);
}
