/**
 * What a run's clock counts besides its start (budgets.ts `runTimeSpentMs`), for many runs in one statement:
 * every wait for a person and, for a run that has any, when its steps ran. Drivers read it beside their
 * opening (pass-reads.ts), so after a restart a thousand runs cost one more statement, not one each.
 *
 * A wait's end is its answer's time. A question or a Confirm nobody answered was cancelled when another plan
 * version replaced its own: that version's time ends it (nothing else stores when it stopped holding the run).
 * A new plan version waits for its approval from when it was made until its first decision; the versions up to
 * the first approved one are before the clock starts and are left out, so a run that never waited reads no
 * attempts at all.
 */
import { sql } from 'drizzle-orm';
import type { RunClockFacts, TimeSpan } from '../../agent/model/budgets.ts';
import type { Db } from '../database.ts';
import { asDate, jsonParam, rawRows } from '../engine/raw-rows.ts';

interface ClockRow {
  kind: 'wait' | 'working';
  run_id: string;
  from_at: Date | string;
  to_at: Date | string | null;
}

export async function selectRunClockFacts(db: Db, runIds: readonly string[]): Promise<Map<string, RunClockFacts>> {
  if (runIds.length === 0) return new Map();
  const rows = await rawRows<ClockRow>(
    db,
    sql`with ids as (
          select jsonb_array_elements_text(${jsonParam([...new Set(runIds)])}::jsonb) as run_id
        ), waits as (
          select e.run_id, e.created_at as from_at, e.resolved_at as to_at
            from escalations e where e.run_id in (select run_id from ids)
          union all
          select q.run_id, q.created_at, coalesce(q.answered_at, (
              select min(pv.created_at) from plan_versions pv
              where pv.run_id = q.run_id and pv.version > coalesce(q.plan_version, 0) and pv.created_at >= q.created_at))
            from questions q where q.run_id in (select run_id from ids)
          union all
          select c.run_id, c.created_at, coalesce(c.decided_at, (
              select min(pv.created_at) from plan_versions pv where pv.run_id = c.run_id and pv.version > c.plan_version))
            from target_confirmations c where c.run_id in (select run_id from ids)
          union all
          select pv.run_id, pv.created_at, coalesce(
              (select min(a.created_at) from approvals a where a.run_id = pv.run_id and a.plan_version = pv.version),
              (select min(n.created_at) from plan_versions n where n.run_id = pv.run_id and n.version > pv.version))
            from plan_versions pv where pv.run_id in (select run_id from ids)
              and pv.version > (select min(a.plan_version) from approvals a where a.run_id = pv.run_id and a.decision = 'approved')
        )
        select 'wait' as kind, run_id, from_at, to_at from waits
        union all
        select 'working', s.run_id, s.started_at, s.finished_at
          from step_attempts s where s.run_id in (select run_id from waits)`,
  );
  const facts = new Map<string, { waits: TimeSpan[]; working: TimeSpan[] }>();
  for (const row of rows) {
    let mine = facts.get(row.run_id);
    if (!mine) facts.set(row.run_id, (mine = { waits: [], working: [] }));
    (row.kind === 'wait' ? mine.waits : mine.working).push({ from: asDate(row.from_at), to: asDate(row.to_at) });
  }
  return facts;
}
