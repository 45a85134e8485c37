/**
 * `tandem prune`: a finished run keeps what `tandem audit` and `tandem show` need to say who approved what
 * and what ran (its plan versions, approvals, steps with their executed arguments, confirmations,
 * escalations, questions, and the events the audit reads: AUDITED_EVENT_TYPES) and
 * loses what makes a store heavy over months: the rest of its event log, the outputs of its steps, its
 * delivered messages. (Slack requests handled long ago are already forgotten by
 * housekeeping.)
 */
import { sql } from 'drizzle-orm';
import { AUDITED_EVENT_TYPES } from '../../agent/model/run-events.ts';
import { FINAL_RUN_STATUSES } from '../../agent/ports/run-store.ts';
import type { Db } from '../database.ts';
import { rawRows } from '../engine/raw-rows.ts';

export interface PruneCounts {
  runs: number;
  events: number;
  outputs: number;
  messages: number;
}

/** Prunes runs that finished before `before`, each once, in one transaction. */
export async function pruneFinishedRuns(db: Db, before: Date): Promise<PruneCounts> {
  const finished = sqlList(FINAL_RUN_STATUSES);
  const audited = sqlList(AUDITED_EVENT_TYPES);
  return db.transaction(async (tx) => {
    const runs = await rawRows<{ id: string }>(
      tx,
      sql`update runs set pruned_at = now(), summary = null
          where status in (${finished}) and finished_at < ${before.toISOString()}::timestamptz and pruned_at is null
          returning id`,
    );
    const ids = runs.map((run) => run.id);
    if (!ids.length) return { runs: 0, events: 0, outputs: 0, messages: 0 };
    // The ids go as one JSON text, not a PostgreSQL array: the client fetches no array types (database.ts).
    const pruned = sql`(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`;
    const [events] = await rawRows<{ n: number }>(
      tx,
      sql`with gone as (delete from events where run_id in ${pruned} and type not in (${audited}) returning 1) select count(*)::int as n from gone`,
    );
    const [steps] = await rawRows<{ n: number }>(
      tx,
      sql`with gone as (update steps set output = null where run_id in ${pruned} and output is not null returning 1) select count(*)::int as n from gone`,
    );
    const [attempts] = await rawRows<{ n: number }>(
      tx,
      sql`with gone as (update step_attempts set output = null where run_id in ${pruned} and output is not null returning 1) select count(*)::int as n from gone`,
    );
    const [messages] = await rawRows<{ n: number }>(
      tx,
      sql`with gone as (delete from outbox where run_id in ${pruned} and status = 'sent' returning 1) select count(*)::int as n from gone`,
    );
    return {
      runs: ids.length,
      events: events?.n ?? 0,
      outputs: (steps?.n ?? 0) + (attempts?.n ?? 0),
      messages: messages?.n ?? 0,
    };
  });
}

function sqlList(values: readonly string[]) {
  return sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  );
}
