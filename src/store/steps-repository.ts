import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { NewStep, StepAttemptRecord, StepErrorRecord, StepRecord, StepStatus } from '../agent/ports/run-store.ts';
import type { Risk } from '../agent/ports/tool.ts';
import type { Db } from './database.ts';
import { stepAttempts, steps } from './schema.ts';

type StepRow = typeof steps.$inferSelect;
type AttemptRow = typeof stepAttempts.$inferSelect;
export type StepKey = { runId: string; planVersion: number; stepId: string };

function toStep(row: StepRow): StepRecord {
  return {
    runId: row.runId,
    planVersion: row.planVersion,
    stepId: row.stepId,
    kind: row.kind as StepRecord['kind'],
    title: row.title,
    tool: row.tool,
    risk: row.risk as Risk,
    dependsOn: row.dependsOn,
    plannedArgs: row.plannedArgs,
    status: row.status as StepStatus,
    attempt: row.attempt,
    output: row.output,
    error: row.error as StepErrorRecord | null,
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
    status: row.status as StepAttemptRecord['status'],
    output: row.output,
    error: row.error as StepErrorRecord | null,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

const keyOf = (key: StepKey) => and(eq(steps.runId, key.runId), eq(steps.planVersion, key.planVersion), eq(steps.stepId, key.stepId));

export async function insertSteps(db: Db, runId: string, planVersion: number, newSteps: NewStep[]): Promise<void> {
  if (newSteps.length === 0) return;
  await db
    .insert(steps)
    .values(newSteps.map((s) => ({ runId, planVersion, ...s, status: 'pending' })))
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

/** The conditional update is the whole claim: whoever flips `pending` first wins, on either engine. */
export async function claimStep(db: Db, input: StepKey & { owner: string; leaseMs: number; executedArgs: Record<string, unknown> }): Promise<StepRecord | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(steps)
      .set({
        status: 'running',
        attempt: sql`${steps.attempt} + 1`,
        startedAt: sql`now()`,
        finishedAt: null,
        error: null,
        output: null,
        leaseOwner: input.owner,
        leaseUntil: sql`now() + ${`${Math.max(1, Math.round(input.leaseMs))} milliseconds`}::interval`,
      })
      .where(and(keyOf(input), eq(steps.status, 'pending')))
      .returning();
    if (!row) return undefined;
    await tx.insert(stepAttempts).values({
      runId: input.runId,
      planVersion: input.planVersion,
      stepId: input.stepId,
      attempt: row.attempt,
      executedArgs: input.executedArgs,
      idempotencyKey: `${input.runId}/${input.planVersion}/${input.stepId}#${row.attempt}`,
      owner: input.owner,
      status: 'running',
      startedAt: row.startedAt ?? new Date(),
    });
    return toStep(row);
  });
}

export async function finishStep(
  db: Db,
  input: StepKey & { attempt: number; status: 'succeeded' | 'failed' | 'uncertain' | 'cancelled' | 'waiting'; output?: Record<string, unknown> | null; error?: StepErrorRecord | null },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const finished = input.status === 'waiting' ? null : sql`now()`;
    const rows = await tx
      .update(steps)
      .set({
        status: input.status,
        output: input.output ?? null,
        error: (input.error ?? null) as Record<string, unknown> | null,
        finishedAt: finished,
        leaseOwner: null,
        leaseUntil: null,
      })
      .where(and(keyOf(input), eq(steps.status, 'running'), eq(steps.attempt, input.attempt)))
      .returning({ stepId: steps.stepId });
    if (rows.length === 0) return false;
    await tx
      .update(stepAttempts)
      .set({
        // A waiting step's attempt ended with the pause; the answer settles the step, not the attempt.
        status: input.status === 'waiting' ? 'succeeded' : input.status,
        output: input.output ?? null,
        error: (input.error ?? null) as Record<string, unknown> | null,
        finishedAt: sql`now()`,
      })
      .where(
        and(eq(stepAttempts.runId, input.runId), eq(stepAttempts.planVersion, input.planVersion), eq(stepAttempts.stepId, input.stepId), eq(stepAttempts.attempt, input.attempt)),
      );
    return true;
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
      ...(input.error !== undefined ? { error: input.error as Record<string, unknown> | null } : {}),
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
