/**
 * Start-up recovery in bulk. After a crash with many runs open, settling each run's interrupted read one
 * run at a time cost about eight statements a run before its step could start again (on PGlite's single
 * connection, 1,000 runs queued behind one another for tens of seconds). Here the running steps of all
 * adopted runs are read in one statement and the reads put back in one more.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { StepAttemptKey, StepRecord } from '../../agent/ports/steps.ts';
import type { Db } from '../database.ts';
import { jsonParam, rawRows } from '../engine/raw-rows.ts';
import { steps } from '../schema.ts';
import type { RawStepRow } from './step-rows.ts';
import { toStep } from './steps-repository.ts';

export async function selectRunningSteps(db: Db, runIds: readonly string[]): Promise<StepRecord[]> {
  if (runIds.length === 0) return [];
  const rows = await db
    .select()
    .from(steps)
    .where(and(inArray(steps.runId, [...runIds]), eq(steps.status, 'running')));
  return rows.map(toStep);
}

/**
 * Each listed attempt that is still running ends `cancelled` with `error`, its step goes back to pending
 * (keeping the error, as a one-at-a-time recovery does), and a `step-requeued` event is numbered on the
 * run's counter — one statement for every run. Run rows are locked first, in id order, as every run
 * transition locks them (the semi-join reads the whole lock list before any step row); an attempt that moved meanwhile is left alone. Returns the attempts requeued.
 */
export async function requeueInterruptedSteps(db: Db, attempts: readonly StepAttemptKey[], why: string): Promise<StepAttemptKey[]> {
  if (attempts.length === 0) return [];
  const keys = attempts.map((a) => ({ run_id: a.runId, plan_version: a.planVersion, step_id: a.stepId, attempt: a.attempt }));
  const error = jsonParam({ message: `interrupted by a restart (${why})` });
  const rows = await rawRows<Pick<RawStepRow, 'run_id' | 'plan_version' | 'step_id' | 'attempt'>>(
    db,
    sql`with k as (
          select * from jsonb_to_recordset(${jsonParam(keys)}::jsonb) as k(run_id text, plan_version int, step_id text, attempt int)
        ), run_lock as (
          select id from runs where id in (select run_id from k) order by id for update
        ), requeued as (
          update steps s set status = 'pending', error = ${error}::jsonb, finished_at = null, lease_owner = null, lease_until = null
          from k
          where s.run_id = k.run_id and s.plan_version = k.plan_version and s.step_id = k.step_id and s.attempt = k.attempt
            and s.status = 'running' and s.run_id in (select id from run_lock)
          returning s.run_id, s.plan_version, s.step_id, s.attempt
        ), ended as (
          update step_attempts a set status = 'cancelled', error = ${error}::jsonb, finished_at = now()
          from requeued r
          where a.run_id = r.run_id and a.plan_version = r.plan_version and a.step_id = r.step_id and a.attempt = r.attempt
        ), numbered as (
          select r.*, row_number() over (partition by r.run_id order by r.plan_version, r.step_id) as position
          from requeued r
        ), counter as (
          update runs set event_seq = event_seq + c.n
          from (select run_id, count(*)::int as n from requeued group by run_id) c
          where runs.id = c.run_id
          returning runs.id, runs.event_seq, c.n
        ), logged as (
          insert into events (run_id, seq, type, data)
          select nb.run_id, counter.event_seq - counter.n + nb.position, 'step-requeued',
            jsonb_build_object('runId', nb.run_id, 'planVersion', nb.plan_version, 'stepId', nb.step_id, 'attempt', nb.attempt, 'why', ${why}::text)
          from numbered nb join counter on counter.id = nb.run_id
        )
        select run_id, plan_version, step_id, attempt from requeued`,
  );
  return rows.map((row) => ({ runId: row.run_id, planVersion: Number(row.plan_version), stepId: row.step_id, attempt: Number(row.attempt) }));
}
