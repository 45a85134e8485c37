import { and, asc, eq, sql } from 'drizzle-orm';
import type { EscalationAction, EscalationRecord, OweAlong } from '../../agent/ports/run-store.ts';
import { insertOwing } from '../delivery/outbox-repository.ts';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { escalations } from '../schema.ts';

type EscalationRow = typeof escalations.$inferSelect;

function toEscalation(row: EscalationRow): EscalationRecord {
  return {
    id: row.id,
    runId: row.runId,
    planVersion: row.planVersion,
    stepId: row.stepId,
    kind: row.kind,
    message: row.message,
    status: row.status,
    resolution: row.resolution,
    resolvedBy: row.resolvedBy,
    createdAt: row.createdAt,
    resolvedAt: row.resolvedAt,
  };
}

export async function insertEscalation(
  db: Db,
  input: Pick<EscalationRecord, 'runId' | 'planVersion' | 'stepId' | 'kind' | 'message'>,
  owed?: OweAlong,
): Promise<EscalationRecord> {
  const id = newId('esc');
  const [row] = await insertOwing(
    db,
    {
      runId: input.runId,
      id,
      kind: 'escalation',
      insert: (tx) =>
        tx
          .insert(escalations)
          .values({ id, ...input })
          .returning(),
    },
    owed,
  );
  return toEscalation(row!);
}

export async function selectEscalation(db: Db, id: string): Promise<EscalationRecord | undefined> {
  const [row] = await db.select().from(escalations).where(eq(escalations.id, id));
  return row ? toEscalation(row) : undefined;
}

export async function selectEscalations(db: Db, runId: string): Promise<EscalationRecord[]> {
  const rows = await db.select().from(escalations).where(eq(escalations.runId, runId)).orderBy(asc(escalations.createdAt), asc(escalations.id));
  return rows.map(toEscalation);
}

export async function selectOpenEscalations(db: Db, input: { kind: EscalationRecord['kind']; limit: number }): Promise<EscalationRecord[]> {
  const rows = await db
    .select()
    .from(escalations)
    .where(and(eq(escalations.status, 'open'), eq(escalations.kind, input.kind)))
    .orderBy(asc(escalations.createdAt), asc(escalations.id))
    .limit(input.limit);
  return rows.map(toEscalation);
}

/** Two people clicking at once: the conditional update lets exactly one resolution count. */
export async function resolveEscalation(db: Db, input: { id: string; action: EscalationAction; userId: string }): Promise<boolean> {
  const rows = await db
    .update(escalations)
    .set({ status: 'resolved', resolution: input.action, resolvedBy: input.userId, resolvedAt: sql`now()` })
    .where(and(eq(escalations.id, input.id), eq(escalations.status, 'open')))
    .returning({ id: escalations.id });
  return rows.length === 1;
}

/** A wait nobody answered within its time to live: closed as expired, with no action, once. */
export async function expireEscalation(db: Db, id: string): Promise<boolean> {
  const rows = await db
    .update(escalations)
    .set({ status: 'expired', resolvedAt: sql`now()` })
    .where(and(eq(escalations.id, id), eq(escalations.status, 'open')))
    .returning({ id: escalations.id });
  return rows.length === 1;
}
