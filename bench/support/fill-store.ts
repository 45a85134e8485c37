/**
 * A store as a team's bot has it after months: one real finished run (its plan versions, approvals, steps,
 * attempts, events, owed messages, usage) cloned `runs` times in a few statements, each copy with its own
 * id, requester, channel, thread and creation time, and padded with events to `eventsPerRun`. Every table
 * that holds a `run_id` is copied, found from the catalogue, so a table added later is filled too.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../../src/store/index.ts';
import { rawRows } from '../../src/store/engine/raw-rows.ts';

export interface FillOptions {
  /** The finished run every copy is made from. */
  templateRunId: string;
  runs: number;
  /** Events per copied run (the template's own, then `step-output` padding). */
  eventsPerRun: number;
  /** Requesters and channels the copies are spread over. */
  requesters?: number;
  channels?: number;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function fillStore(db: Db, options: FillOptions): Promise<{ runs: number; events: number }> {
  const { templateRunId, runs, eventsPerRun } = options;
  const requesters = options.requesters ?? 25;
  const channels = options.channels ?? 10;
  const template = sql`${templateRunId}`;
  const copyId = sql.raw(`'fill_' || lpad(i::text, 6, '0') || '_' || t.run_id`);
  // The run rows first (their children point at them), each copy a minute older than the next.
  await db.execute(sql`
    insert into runs (id, task, requester, channel, thread_ts, origin, status, current_plan_version, replans, board_ref, summary,
                      event_seq, created_at, updated_at, finished_at, trace_id, trace_span_id)
    select 'fill_' || lpad(i::text, 6, '0') || '_' || t.id, t.task, 'UFILL' || (i % ${requesters}), 'CFILL' || (i % ${channels}),
           'fill.' || i, t.origin, t.status, t.current_plan_version, t.replans, t.board_ref, t.summary,
           greatest(t.event_seq, ${eventsPerRun}), t.created_at - make_interval(mins => i + 1), t.updated_at - make_interval(mins => i + 1),
           t.finished_at - make_interval(mins => i + 1), t.trace_id, t.trace_span_id
    from runs t, generate_series(1, ${runs}) i where t.id = ${template}`);
  const tables = await rawRows<{ table_name: string }>(
    db,
    sql`select distinct table_name from information_schema.columns
        where column_name = 'run_id' and table_schema = current_schema() order by table_name`,
  );
  for (const { table_name: table } of tables) {
    const columns = await rawRows<{ column_name: string }>(
      db,
      sql`select column_name from information_schema.columns
          where table_name = ${table} and table_schema = current_schema() and is_identity = 'NO' and column_name <> 'run_id'
          order by ordinal_position`,
    );
    const names = columns.map((column) => quote(column.column_name));
    const list = sql.raw(names.join(', '));
    // A row's own text id (owed messages, escalations, questions) gets the copy's number too.
    const picked = sql.raw(names.map((name) => (name === '"id"' ? `t.id || '_' || i` : `t.${name}`)).join(', '));
    await db.execute(
      sql`insert into ${sql.raw(quote(table))} (run_id, ${list}) select ${copyId}, ${picked} from ${sql.raw(quote(table))} t, generate_series(1, ${runs}) i where t.run_id = ${template}`,
    );
  }
  // Padding: step outputs as a long run logs them, numbered after the template's own events.
  await db.execute(sql`
    insert into events (run_id, seq, type, data, at)
    select r.id, s, 'step-output', jsonb_build_object('stepId', 'pad', 'line', s, 'text', repeat('x', 80)), r.finished_at
    from runs r, generate_series((select coalesce(max(seq), 0) + 1 from events where run_id = ${template}), ${eventsPerRun}) s
    where r.id like 'fill\\_%'`);
  await db.execute(sql`analyze`);
  const [counts] = await rawRows<{ runs: number; events: number }>(
    db,
    sql`select (select count(*) from runs)::int as runs, (select count(*) from events)::int as events`,
  );
  return counts!;
}
