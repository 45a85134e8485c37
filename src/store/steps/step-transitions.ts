/**
 * A step's end, the claims of the dependants it lets start, and the events that record them, in one
 * statement (data-modifying CTEs): on the critical path of a chain of steps that is one round trip and
 * one commit per step, where a transaction costs four and a separate event write a fifth.
 *
 * Locks are taken in the order every run transition takes them: the run row first (it also numbers the
 * events), then the step rows. Every step CTE is gated on `run_lock`, which PostgreSQL evaluates once,
 * before it scans `steps`.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { ClaimStepInput, FinishStepInput, StepRecord } from '../../agent/ports/run-store.ts';
import type { Db } from '../database.ts';
import { preparedShapes } from '../engine/prepared-rows.ts';
import { jsonParam } from '../engine/raw-rows.ts';
import { fromRawStep, type RawStepRow } from './step-rows.ts';

/**
 * No replica can start a step of a version nobody approved: the claim itself requires an approval row
 * of the step's version, and for a forward step that the run is executing exactly that version (a
 * rollback step runs while the run rolls back, for a version that was approved when it ran).
 */
const approvedToRun = sql`exists (select 1 from approvals a where a.run_id = steps.run_id and a.plan_version = steps.plan_version and a.decision = 'approved')
  and (steps.kind = 'rollback' or exists (select 1 from runs r where r.id = steps.run_id and r.status = 'executing' and r.current_plan_version = steps.plan_version))`;

export interface StepTransitions {
  runId: string;
  planVersion: number;
  /** Ends this running attempt; the claims are attempted only if it stores. */
  finish?: FinishStepInput;
  /** pending → running, each under its own conditions; whoever flips `pending` first wins. */
  claims: readonly ClaimStepInput[];
}

/** Writes the transitions; `finished` says whether the finish stored, `claimed` holds the claims that won. */
export async function writeStepTransitions(db: Db, write: StepTransitions): Promise<{ finished: boolean; claimed: StepRecord[] }> {
  const shape: TransitionShape = `${write.finish ? 'finish' : 'claims'}_${write.claims.length}`;
  const rows = await transitionStatement(shape)(db, transitionValues(write));
  const finished = write.finish ? Number(rows[0]?.finished_count ?? 0) === 1 : false;
  const claimed = rows.filter((row) => row.step_id !== null).map(fromRawStep);
  return { finished, claimed };
}

/** What the statement's text depends on: whether it finishes a step, and how many claims it makes. */
type TransitionShape = `${'finish' | 'claims'}_${number}`;

const transitionStatement = preparedShapes<TransitionShape, RawStepRow & { finished_count: number; step_id: string | null }>((shape) => {
  const [kind, count] = shape.split('_') as ['finish' | 'claims', string];
  return transitionText(kind === 'finish', Number(count));
}, 'step_transitions');

/** A value of the call, filled in from `transitionValues` (a name it does not give fails the call). */
const value = (name: string) => sql.placeholder(name);

/** The statement for one shape; every value is a placeholder (`transitionValues` gives them). */
function transitionText(finishes: boolean, claimCount: number): SQL {
  return sql`with run_lock as (select id from runs where id = ${value('runId')} for update),
        ${finishes ? finishCtes : sql`finished as (select null::text as run_id where false),`}
        wanted as (
          select * from jsonb_to_recordset(${value('claims')}::jsonb)
            as w(step_id text, position int, owner text, lease_ms int, executed_args jsonb, started jsonb)
        ), claimed as (
          update steps set status = 'running', attempt = attempt + 1, started_at = now(), finished_at = null, error = null, output = null,
            lease_owner = w.owner, lease_until = now() + w.lease_ms * interval '1 millisecond'
          from wanted w
          where steps.run_id = ${value('runId')} and steps.plan_version = ${value('planVersion')} and steps.step_id = w.step_id
            and steps.step_id in (${claimedIds(claimCount)})
            and steps.status = 'pending' and exists (select 1 from run_lock) and ${approvedToRun}
            ${finishes ? sql`and exists (select 1 from finished)` : sql``}
          returning steps.*, w.position as claim_position, w.executed_args as claim_args, w.started as claim_started
        ), claimed_attempts as (
          insert into step_attempts (run_id, plan_version, step_id, attempt, executed_args, idempotency_key, owner, status, started_at)
          select run_id, plan_version, step_id, attempt, claim_args, run_id || '/' || plan_version || '/' || step_id || '#' || attempt,
            lease_owner, 'running', started_at
          from claimed
        ), ${eventCtes}
        select f.finished_count, c.*
        from (select count(*)::int as finished_count from finished) f left join claimed c on true
        order by c.claim_position`;
}

/** The values of one call, by the placeholders' names. */
function transitionValues(write: StepTransitions): Record<string, unknown> {
  const finish = write.finish;
  const finishEvents = finish?.events?.map((event) => ({ type: event.type, data: event.data })) ?? [];
  const values: Record<string, unknown> = {
    runId: write.runId,
    planVersion: write.planVersion,
    claims: jsonParam(write.claims.map(claimParams)),
    finishEvents: jsonParam(finishEvents),
    firstClaimEvent: finishEvents.length + 1,
    // Unused by a statement without a finish: present so that every shape takes the same values.
    finishRunId: finish?.runId ?? null,
    finishPlanVersion: finish?.planVersion ?? null,
    finishStepId: finish?.stepId ?? null,
    finishAttempt: finish?.attempt ?? null,
    finishStatus: finish?.status ?? null,
    // A waiting step's attempt ended with the pause; the answer settles the step, not the attempt.
    attemptStatus: finish ? (finish.status === 'waiting' ? 'succeeded' : finish.status) : null,
    output: jsonParam(finish?.output ?? null),
    error: jsonParam(finish?.error ?? null),
  };
  write.claims.forEach((claim, index) => (values[`claimedId${index}`] = claim.stepId));
  return values;
}

/** The finish of the live attempt and of its attempt row; a step that is no longer that attempt is left alone. */
const finishCtes = sql`finished as (
      update steps set status = ${value('finishStatus')}, output = ${value('output')}::jsonb, error = ${value('error')}::jsonb,
        finished_at = case when ${value('finishStatus')} = 'waiting' then null else now() end, lease_owner = null, lease_until = null
      where run_id = ${value('finishRunId')} and plan_version = ${value('finishPlanVersion')} and step_id = ${value('finishStepId')}
        and status = 'running' and attempt = ${value('finishAttempt')} and exists (select 1 from run_lock)
      returning run_id, plan_version, step_id, attempt
    ), finished_attempt as (
      update step_attempts a set status = ${value('attemptStatus')}, output = ${value('output')}::jsonb, error = ${value('error')}::jsonb, finished_at = now()
      from finished f
      where a.run_id = f.run_id and a.plan_version = f.plan_version and a.step_id = f.step_id and a.attempt = f.attempt
    ),`;

/**
 * The claimed ids as a list the planner can count: joined only to the set of claims (a function's rows it
 * guesses at 100), it scanned every pending step of the run instead of looking each one up by key.
 */
const claimedIds = (count: number) =>
  count === 0
    ? sql`null`
    : sql.join(
        Array.from({ length: count }, (_, index) => sql.placeholder(`claimedId${index}`)),
        sql`, `,
      );

const claimParams = (claim: ClaimStepInput, position: number) => ({
  step_id: claim.stepId,
  position,
  owner: claim.owner,
  lease_ms: Math.max(1, Math.round(claim.leaseMs)),
  executed_args: claim.executedArgs,
  started: claim.started ? { runId: claim.runId, planVersion: claim.planVersion, stepId: claim.stepId, ...claim.started } : null,
});

/**
 * The finish's events (if it stored), then a `step-started` for each claim that won (with the attempt it
 * took), numbered on from the run's counter in that order, as appendEvents numbers a batch.
 */
const eventCtes = sql`logged as (
      select item.event, item.position::int as position
      from (select 1 from finished) f, jsonb_array_elements(${value('finishEvents')}::jsonb) with ordinality as item(event, position)
      union all
      select jsonb_build_object('type', 'step-started', 'data', c.claim_started || jsonb_build_object('attempt', c.attempt)),
        ${value('firstClaimEvent')} + c.claim_position
      from claimed c where c.claim_started is not null
    ), counted as (select count(*)::int as n from logged), counter as (
      update runs set event_seq = event_seq + counted.n from counted where runs.id = ${value('runId')} and counted.n > 0 returning event_seq, counted.n
    ), appended as (
      insert into events (run_id, seq, type, data)
      select ${value('runId')}, counter.event_seq - counter.n + row_number() over (order by logged.position), logged.event->>'type', logged.event->'data'
      from counter, logged
    )`;
