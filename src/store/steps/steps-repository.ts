import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { NewStep, RunStatus, StepAttemptRecord, StepErrorRecord, StepRecord, StepStatus } from '../../agent/ports/run-store.ts';
import { builtOnce } from '../engine/built-once.ts';
import { preparedRows } from '../engine/prepared-rows.ts';
import { jsonParam } from '../engine/raw-rows.ts';
import type { Db } from '../database.ts';
import { runs, stepAttempts, steps } from '../schema.ts';

type StepRow = typeof steps.$inferSelect;
type AttemptRow = typeof stepAttempts.$inferSelect;
export type StepKey = { runId: string; planVersion: number; stepId: string };

export function toStep(row: StepRow): StepRecord {
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

/** The run is in `status`; FOR SHARE waits for a transition of the run on its way and reads its outcome. */
const runIs = (runId: string, status: RunStatus) => sql`exists (select 1 from ${runs} where ${runs.id} = ${runId} and ${runs.status} = ${status} for share)`;

const keyOf = (key: StepKey) => and(eq(steps.runId, key.runId), eq(steps.planVersion, key.planVersion), eq(steps.stepId, key.stepId));

/**
 * A version's steps as `pending`, from one set of rows: one statement text however many steps (it stays
 * prepared), where a multi-row insert was a new text, built anew, for every plan size.
 */
export async function insertSteps(db: Db, runId: string, planVersion: number, newSteps: NewStep[]): Promise<void> {
  if (newSteps.length === 0) return;
  const rows = newSteps.map((step) => ({
    step_id: step.stepId,
    kind: step.kind,
    title: step.title,
    tool: step.tool,
    risk: step.risk,
    depends_on: step.dependsOn,
    planned_args: step.plannedArgs,
  }));
  await addSteps(db, { runId, planVersion, rows: jsonParam(rows) });
}

const addSteps = preparedRows(
  'add_steps',
  sql`insert into steps (run_id, plan_version, step_id, kind, title, tool, risk, depends_on, planned_args, status)
      select ${sql.placeholder('runId')}, ${sql.placeholder('planVersion')}, s.step_id, s.kind, s.title, s.tool, s.risk, s.depends_on, s.planned_args, 'pending'
      from jsonb_to_recordset(${sql.placeholder('rows')}::jsonb)
        as s(step_id text, kind text, title text, tool text, risk text, depends_on jsonb, planned_args jsonb)
      on conflict do nothing`,
);

const stepOrder = [asc(steps.planVersion), asc(steps.createdAt), asc(steps.stepId)];
const stepsOfRun = builtOnce((db) =>
  db
    .select()
    .from(steps)
    .where(eq(steps.runId, sql.placeholder('runId')))
    .orderBy(...stepOrder)
    .prepare('steps_of_run'),
);
const stepsOfVersion = builtOnce((db) =>
  db
    .select()
    .from(steps)
    .where(and(eq(steps.runId, sql.placeholder('runId')), eq(steps.planVersion, sql.placeholder('planVersion'))))
    .orderBy(...stepOrder)
    .prepare('steps_of_version'),
);

export async function selectSteps(db: Db, runId: string, planVersion?: number): Promise<StepRecord[]> {
  const rows = planVersion === undefined ? await stepsOfRun(db).execute({ runId }) : await stepsOfVersion(db).execute({ runId, planVersion });
  return rows.map(toStep);
}

export async function setStepStatus(
  db: Db,
  input: StepKey & {
    from: readonly StepStatus[];
    to: StepStatus;
    output?: Record<string, unknown> | null;
    error?: StepErrorRecord | null;
    whileRunIs?: RunStatus;
  },
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
    .where(and(keyOf(input), inArray(steps.status, [...input.from]), input.whileRunIs ? runIs(input.runId, input.whileRunIs) : undefined))
    .returning({ stepId: steps.stepId });
  return rows.length === 1;
}

export async function selectAttempts(db: Db, runId: string): Promise<StepAttemptRecord[]> {
  const rows = await db.select().from(stepAttempts).where(eq(stepAttempts.runId, runId)).orderBy(asc(stepAttempts.startedAt), asc(stepAttempts.attempt));
  return rows.map(toAttempt);
}
