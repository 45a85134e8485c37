import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { ConfirmationRecord, NewOwedMessage, RunStatus } from '../../agent/ports/run-store.ts';
import type { Db } from '../database.ts';
import { insertOwed } from '../delivery/outbox-repository.ts';
import { runs, steps, targetConfirmations } from '../schema.ts';

type ConfirmationRow = typeof targetConfirmations.$inferSelect;

function toConfirmation(row: ConfirmationRow): ConfirmationRecord {
  return row;
}

/** Thrown inside a transaction to undo it when a later condition fails. */
class NothingChanged extends Error {}

const AWAITING = { message: 'waiting for an approver to confirm its target', code: 'awaiting-confirmation' };
/**
 * A decision needs a run that is still going: a Confirm may not start a step of an ended or replaced plan.
 * A rolling-back run's rollback steps come from whichever version made the change they undo, so there
 * the version is not compared: no version can be proposed once a run rolls back.
 */
const DECIDABLE: readonly RunStatus[] = ['paused', 'executing', 'rolling-back'];

// Forward and rollback steps of one version never share an id (plan validation), so the id names the step.
const stepKey = (input: { runId: string; planVersion: number; stepId: string }) =>
  and(eq(steps.runId, input.runId), eq(steps.planVersion, input.planVersion), eq(steps.stepId, input.stepId));

/** What a run in this status can be waiting to confirm: a rolling-back run, only its rollback steps. */
const waitingKind = (status: RunStatus) => (status === 'rolling-back' ? 'rollback' : 'forward');
const confirmationKey = (input: { runId: string; planVersion: number; stepId: string }) =>
  and(eq(targetConfirmations.runId, input.runId), eq(targetConfirmations.planVersion, input.planVersion), eq(targetConfirmations.stepId, input.stepId));

export async function requestConfirmation(
  db: Db,
  request: Pick<ConfirmationRecord, 'runId' | 'planVersion' | 'stepId' | 'tool' | 'risk' | 'targets' | 'lateBound'> & {
    owe: NewOwedMessage;
    owner: string;
    leaseMs: number;
  },
): Promise<ConfirmationRecord | undefined> {
  const { owe, owner, leaseMs, ...input } = request;
  return undoneIfNothingChanged(() =>
    db.transaction(async (tx) => {
      const moved = await tx
        .update(steps)
        .set({ status: 'waiting', error: AWAITING })
        .where(and(stepKey(input), eq(steps.status, 'pending')))
        .returning({ stepId: steps.stepId });
      if (moved.length === 0) throw new NothingChanged();
      const fresh = {
        targets: input.targets,
        lateBound: input.lateBound,
        tool: input.tool,
        risk: input.risk,
        status: 'pending' as const,
        decidedBy: null,
        decidedAt: null,
        createdAt: sql`now()`,
      };
      const [row] = await tx
        .insert(targetConfirmations)
        .values({ ...input, status: 'pending' })
        .onConflictDoUpdate({ target: [targetConfirmations.runId, targetConfirmations.planVersion, targetConfirmations.stepId], set: fresh })
        .returning();
      await insertOwed(tx, { runId: input.runId, owe: [owe], owner, leaseMs });
      return toConfirmation(row!);
    }),
  );
}

export async function decideConfirmation(
  db: Db,
  input: { runId: string; planVersion: number; stepId: string; userId: string; decision: 'confirmed' | 'aborted' },
): Promise<ConfirmationRecord | undefined> {
  return undoneIfNothingChanged(() =>
    db.transaction(async (tx) => {
      // The run row is locked first, as every run transition takes it: an edit proposing a new version waits or has won.
      const [run] = await tx
        .select({ version: runs.currentPlanVersion, status: runs.status })
        .from(runs)
        .where(and(eq(runs.id, input.runId), inArray(runs.status, [...DECIDABLE])))
        .for('update');
      if (!run || (run.status !== 'rolling-back' && run.version !== input.planVersion)) throw new NothingChanged();
      // The step must wait for this Confirm now: a forward step's request left pending when an Abort cancelled the
      // step is not decidable while the run rolls back (an Abort there would start a second rollback).
      const [waiting] = await tx
        .select({ stepId: steps.stepId })
        .from(steps)
        .where(and(stepKey(input), eq(steps.kind, waitingKind(run.status)), eq(steps.status, 'waiting')));
      if (!waiting) throw new NothingChanged();
      const [row] = await tx
        .update(targetConfirmations)
        .set({ status: input.decision, decidedBy: input.userId, decidedAt: sql`now()` })
        .where(and(confirmationKey(input), eq(targetConfirmations.status, 'pending')))
        .returning();
      if (!row) throw new NothingChanged();
      if (input.decision === 'confirmed') {
        const released = await tx
          .update(steps)
          .set({ status: 'pending', error: null })
          .where(and(stepKey(input), eq(steps.status, 'waiting')))
          .returning({ stepId: steps.stepId });
        if (released.length === 0) throw new NothingChanged();
      }
      return toConfirmation(row);
    }),
  );
}

export async function selectConfirmations(db: Db, runId: string): Promise<ConfirmationRecord[]> {
  const rows = await db
    .select()
    .from(targetConfirmations)
    .where(eq(targetConfirmations.runId, runId))
    .orderBy(asc(targetConfirmations.createdAt), asc(targetConfirmations.stepId));
  return rows.map(toConfirmation);
}

async function undoneIfNothingChanged<T>(work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof NothingChanged) return undefined;
    throw error;
  }
}
