import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type {
  ClaimStepInput,
  FinishStepInput,
  NewStep,
  StepAttemptRecord,
  StepErrorRecord,
  StepKind,
  StepRecord,
  StepStatus,
} from '../agent/ports/run-store.ts';
import type { Risk } from '../agent/ports/tool.ts';
import type { Db } from './database.ts';
import { jsonParam, rawRows } from './raw-rows.ts';
import { stepAttempts, steps } from './schema.ts';

type StepRow = typeof steps.$inferSelect;
type AttemptRow = typeof stepAttempts.$inferSelect;
export type StepKey = { runId: string; planVersion: number; stepId: string };

function toStep(row: StepRow): StepRecord {
  return {
    runId: row.runId,
    planVersion: row.planVersion,
    stepId: row.stepId,
    kind: row.kind,
    title: row.title,
    tool: row.tool,
    risk: row.risk,
    dependsOn: row.dependsOn,
    plannedArgs: row.plannedArgs,
    status: row.status,
    attempt: row.attempt,
    output: row.output,
    error: row.error,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    leaseOwner: row.leaseOwner,
    leaseUntil: row.leaseUntil,
  };
}

function toAttempt(row: AttemptRow): StepAttemptRecord {
  return {
    runId: row.runId,
    planVersion: row.planVersion,
    stepId: row.stepId,
    attempt: row.attempt,
    executedArgs: row.executedArgs,
    idempotencyKey: row.idempotencyKey,
    status: row.status,
    output: row.output,
    error: row.error,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

const keyOf = (key: StepKey) => and(eq(steps.runId, key.runId), eq(steps.planVersion, key.planVersion), eq(steps.stepId, key.stepId));

export async function insertSteps(db: Db, runId: string, planVersion: number, newSteps: NewStep[]): Promise<void> {
  if (newSteps.length === 0) return;
  await db
    .insert(steps)
    .values(newSteps.map((s) => ({ runId, planVersion, ...s, status: 'pending' as const })))
    .onConflictDoNothing();
}

export async function selectSteps(db: Db, runId: string, planVersion?: number): Promise<StepRecord[]> {
  const rows = await db
    .select()
    .from(steps)
    .where(planVersion === undefined ? eq(steps.runId, runId) : and(eq(steps.runId, runId), eq(steps.planVersion, planVersion)))
    .orderBy(asc(steps.planVersion), asc(steps.createdAt), asc(steps.stepId));
  return rows.map(toStep);
}

interface RawStepRow {
  run_id: string;
  plan_version: number;
  step_id: string;
  kind: StepKind;
  title: string;
  tool: string;
  risk: Risk;
  depends_on: string[];
  planned_args: Record<string, unknown>;
  status: StepStatus;
  attempt: number;
  output: Record<string, unknown> | null;
  error: StepErrorRecord | null;
  started_at: Date | string | null;
  finished_at: Date | string | null;
  lease_owner: string | null;
  lease_until: Date | string | null;
}

const asDate = (value: Date | string | null) => (value === null ? null : value instanceof Date ? value : new Date(value));

function fromRaw(row: RawStepRow): StepRecord {
  return {
    runId: row.run_id,
    planVersion: Number(row.plan_version),
    stepId: row.step_id,
    kind: row.kind,
    title: row.title,
    tool: row.tool,
    risk: row.risk,
    dependsOn: row.depends_on,
    plannedArgs: row.planned_args,
    status: row.status,
    attempt: Number(row.attempt),
    output: row.output,
    error: row.error,
    startedAt: asDate(row.started_at),
    finishedAt: asDate(row.finished_at),
    leaseOwner: row.lease_owner,
    leaseUntil: asDate(row.lease_until),
  };
}

/**
 * No replica can start a step of a version nobody approved: the claim itself requires an approval row
 * of the step's version, and for a forward step that the run is executing exactly that version (a
 * rollback step runs while the run rolls back, for a version that was approved when it ran).
 */
const approvedToRun = sql`exists (select 1 from approvals a where a.run_id = steps.run_id and a.plan_version = steps.plan_version and a.decision = 'approved')
  and (steps.kind = 'rollback' or exists (select 1 from runs r where r.id = steps.run_id and r.status = 'executing' and r.current_plan_version = steps.plan_version))`;

/**
 * The conditional update is the whole claim: whoever flips `pending` first wins, on either engine.
 * Claim and attempt row go in one statement (data-modifying CTE): a claim sits on the critical path of
 * every dependant step, so it costs one round trip, not a transaction's four.
 */
export async function claimStep(db: Db, input: ClaimStepInput): Promise<StepRecord | undefined> {
  const leaseMs = Math.max(1, Math.round(input.leaseMs));
  const [row] = await rawRows<RawStepRow>(
    db,
    sql`with claimed as (
          update steps set status = 'running', attempt = attempt + 1, started_at = now(), finished_at = null,
            error = null, output = null, lease_owner = ${input.owner}, lease_until = now() + ${leaseMs} * interval '1 millisecond'
          where run_id = ${input.runId} and plan_version = ${input.planVersion} and step_id = ${input.stepId} and status = 'pending'
            and ${approvedToRun}
          returning *
        ), attempt_row as (
          insert into step_attempts (run_id, plan_version, step_id, attempt, executed_args, idempotency_key, owner, status, started_at)
          select run_id, plan_version, step_id, attempt, ${jsonParam(input.executedArgs)}::jsonb,
            run_id || '/' || plan_version || '/' || step_id || '#' || attempt, ${input.owner}, 'running', started_at
          from claimed
        )
        select * from claimed`,
  );
  return row ? fromRaw(row) : undefined;
}

/** Ends the live attempt of a step and its attempt row together, in one statement for the same reason as claimStep. */
export async function finishStep(db: Db, input: FinishStepInput): Promise<boolean> {
  // A waiting step's attempt ended with the pause; the answer settles the step, not the attempt.
  const attemptStatus = input.status === 'waiting' ? 'succeeded' : input.status;
  const output = jsonParam(input.output ?? null);
  const error = jsonParam(input.error ?? null);
  const [row] = await rawRows<{ finished: number }>(
    db,
    sql`with finished as (
          update steps set status = ${input.status}, output = ${output}::jsonb, error = ${error}::jsonb,
            finished_at = case when ${input.status} = 'waiting' then null else now() end, lease_owner = null, lease_until = null
          where run_id = ${input.runId} and plan_version = ${input.planVersion} and step_id = ${input.stepId}
            and status = 'running' and attempt = ${input.attempt}
          returning run_id, plan_version, step_id, attempt
        ), attempt_row as (
          update step_attempts a set status = ${attemptStatus}, output = ${output}::jsonb, error = ${error}::jsonb, finished_at = now()
          from finished f
          where a.run_id = f.run_id and a.plan_version = f.plan_version and a.step_id = f.step_id and a.attempt = f.attempt
        )
        select count(*)::int as finished from finished`,
  );
  return Number(row?.finished ?? 0) === 1;
}

/**
 * A step's end and the claims of the dependants it lets start, in one transaction: on the critical path
 * of a chain of steps, one commit where there were two. Each claim keeps claimStep's conditions; none is
 * attempted unless the finish stored.
 */
export async function finishStepAndClaim(
  db: Db,
  finish: FinishStepInput,
  claims: readonly ClaimStepInput[],
): Promise<{ finished: boolean; claimed: StepRecord[] }> {
  return db.transaction(async (tx) => {
    const store = tx as unknown as Db;
    if (!(await finishStep(store, finish))) return { finished: false, claimed: [] };
    const claimed: StepRecord[] = [];
    for (const claim of claims) {
      const record = await claimStep(store, claim);
      if (record) claimed.push(record);
    }
    return { finished: true, claimed };
  });
}

export async function setStepStatus(
  db: Db,
  input: StepKey & { from: readonly StepStatus[]; to: StepStatus; output?: Record<string, unknown> | null; error?: StepErrorRecord | null },
): Promise<boolean> {
  if (input.from.length === 0) return false;
  const settles = ['succeeded', 'failed', 'skipped', 'cancelled', 'uncertain'].includes(input.to);
  const rows = await db
    .update(steps)
    .set({
      status: input.to,
      ...(input.output !== undefined ? { output: input.output } : {}),
      ...(input.error !== undefined ? { error: input.error } : {}),
      ...(settles ? { finishedAt: sql`coalesce(${steps.finishedAt}, now())` } : { finishedAt: null }),
      leaseOwner: null,
      leaseUntil: null,
    })
    .where(and(keyOf(input), inArray(steps.status, [...input.from])))
    .returning({ stepId: steps.stepId });
  return rows.length === 1;
}

export async function selectAttempts(db: Db, runId: string): Promise<StepAttemptRecord[]> {
  const rows = await db.select().from(stepAttempts).where(eq(stepAttempts.runId, runId)).orderBy(asc(stepAttempts.startedAt), asc(stepAttempts.attempt));
  return rows.map(toAttempt);
}
