import { asc, eq, sql } from 'drizzle-orm';
import { jsonParam, rawRows } from '../engine/raw-rows.ts';
import { parseRunEvent, type RunEvent } from '../../agent/model/run-events.ts';
import { builtOnce } from '../engine/built-once.ts';
import type { Db } from '../database.ts';
import { events } from '../schema.ts';

interface RawEventRow {
  run_id: string;
  seq: number;
  type: string;
  data: Record<string, unknown>;
  at: Date | string;
}

/**
 * Bumping the run's counter and inserting the events in one statement serialises appends per run on
 * the run row's lock, so sequence numbers are gap-free and match commit order — in one round trip,
 * however many events the batch holds. The batch's rows take consecutive numbers in the given order.
 */
export async function appendEvents(db: Db, runId: string, batch: readonly { type: string; data?: Record<string, unknown> }[]): Promise<RunEvent[]> {
  if (batch.length === 0) return [];
  const rows = await rawRows<RawEventRow>(
    db,
    sql`with counter as (
          update runs set event_seq = event_seq + ${batch.length} where id = ${runId} returning event_seq
        )
        insert into events (run_id, seq, type, data)
        select ${runId}, counter.event_seq - ${batch.length} + item.position, item.event->>'type', item.event->'data'
        from counter, jsonb_array_elements(${jsonParam(batch.map((event) => ({ type: event.type, data: event.data ?? {} })))}::jsonb)
          with ordinality as item(event, position)
        returning run_id, seq, type, data, at`,
  );
  if (rows.length === 0) throw new Error(`run ${runId} not found`);
  return rows
    .map((row) =>
      parseRunEvent({ runId: row.run_id, seq: Number(row.seq), type: row.type, data: row.data, at: row.at instanceof Date ? row.at : new Date(row.at) }),
    )
    .sort((a, b) => a.seq - b.seq);
}

/**
 * One event for each of many runs in one statement. Each run's counter is bumped by its own count, so
 * every run's sequence stays gap-free; a run that does not exist gets none.
 */
export async function appendToRuns(db: Db, entries: readonly { runId: string; event: { type: string; data?: Record<string, unknown> } }[]): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map(({ runId, event }, position) => ({ run_id: runId, position, type: event.type, data: event.data ?? {} }));
  await db.execute(
    sql`with item as (
          select * from jsonb_to_recordset(${jsonParam(rows)}::jsonb) as item(run_id text, position int, type text, data jsonb)
        ), numbered as (
          select item.*, row_number() over (partition by item.run_id order by item.position) as nth from item
        ), counter as (
          update runs set event_seq = event_seq + c.n
          from (select run_id, count(*)::int as n from item group by run_id order by run_id) c
          where runs.id = c.run_id
          returning runs.id, runs.event_seq, c.n
        )
        insert into events (run_id, seq, type, data)
        select numbered.run_id, counter.event_seq - counter.n + numbered.nth, numbered.type, numbered.data
        from numbered join counter on counter.id = numbered.run_id`,
  );
}

export async function appendEvent(db: Db, runId: string, type: string, data: Record<string, unknown> = {}): Promise<RunEvent> {
  const [event] = await appendEvents(db, runId, [{ type, data }]);
  return event!;
}

const eventsOfRun = builtOnce((db) =>
  db
    .select()
    .from(events)
    .where(eq(events.runId, sql.placeholder('runId')))
    .orderBy(asc(events.seq))
    .prepare('events_of_run'),
);

export async function selectEvents(db: Db, runId: string): Promise<RunEvent[]> {
  const rows = await eventsOfRun(db).execute({ runId });
  // Parsed by each type's schema; a row an older version wrote in another shape reads as an `unknown` event.
  return rows.map(parseRunEvent);
}
