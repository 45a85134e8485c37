import { sql } from 'drizzle-orm';
import type { RunStatus } from '../../agent/ports/run-store.ts';
import type { Db } from '../database.ts';
import { rawRows } from '../engine/raw-rows.ts';

export type WaitKind = 'approval' | 'question' | 'escalation' | 'confirm';

export interface OpenWaits {
  /** Per kind of wait for a person: how many are open and how long the oldest has waited (0 when none). */
  waits: Record<WaitKind, { open: number; oldestSeconds: number }>;
  /** Runs not yet ended, by status. */
  activeRuns: Record<string, number>;
}

/** Every status, and whether a run in it has not ended yet: a status added later must be placed here. */
const NOT_ENDED: Record<RunStatus, boolean> = {
  planning: true,
  'awaiting-approval': true,
  'awaiting-answer': true,
  executing: true,
  paused: true,
  'rolling-back': true,
  succeeded: false,
  failed: false,
  aborted: false,
  cancelled: false,
  rejected: false,
  expired: false,
};
/** Named, not `not in (the final ones)`: the status index then finds the few open runs among months of ended ones. */
const notEnded = sql.join(
  Object.entries(NOT_ENDED)
    .filter(([, open]) => open)
    .map(([status]) => sql`${status}`),
  sql`, `,
);

/**
 * What /metrics shows of the people a run waits for and the runs under way, in one statement: plans
 * awaiting approval (since their version was proposed), open questions of runs not ended, open
 * escalations, pending Confirms.
 */
export async function openWaits(db: Db): Promise<OpenWaits> {
  const rows = await rawRows<{ kind: string; open: number | string; oldest: number | string | null }>(
    db,
    sql`select 'approval' as kind, count(*) as open, extract(epoch from now() - min(pv.created_at))::float8 as oldest
          from runs r join plan_versions pv on pv.run_id = r.id and pv.version = r.current_plan_version
          where r.status = 'awaiting-approval'
        union all
        select 'question', count(*), extract(epoch from now() - min(q.created_at))::float8
          from questions q join runs r on r.id = q.run_id
          where q.answered_at is null and r.status in (${notEnded})
        union all
        select 'escalation', count(*), extract(epoch from now() - min(created_at))::float8 from escalations where status = 'open'
        union all
        select 'confirm', count(*), extract(epoch from now() - min(created_at))::float8 from target_confirmations where status = 'pending'
        union all
        select 'run:' || status, count(*), null from runs
          where status in (${notEnded}) group by status`,
  );
  const waits = { approval: none(), question: none(), escalation: none(), confirm: none() };
  const activeRuns: Record<string, number> = {};
  for (const row of rows) {
    if (row.kind.startsWith('run:')) activeRuns[row.kind.slice(4)] = Number(row.open);
    else if (row.kind in waits) waits[row.kind as WaitKind] = { open: Number(row.open), oldestSeconds: Math.max(0, Number(row.oldest ?? 0)) };
  }
  return { waits, activeRuns };
}

function none() {
  return { open: 0, oldestSeconds: 0 };
}
