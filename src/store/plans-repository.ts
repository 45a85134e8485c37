import { asc, eq, and, sql } from 'drizzle-orm';
import type { ApprovalRecord, NewApproval, PlanVersionRecord } from '../agent/ports/run-store.ts';
import { PlanSchema, type Plan } from '../agent/plan.ts';
import type { Text } from '../agent/text.ts';
import { builtOnce } from './built-once.ts';
import type { Db } from './database.ts';
import { isUniqueViolation } from './errors.ts';
import { approvals, planVersions } from './schema.ts';

type PlanRow = typeof planVersions.$inferSelect;

function toPlanVersion(row: PlanRow): PlanVersionRecord {
  return {
    runId: row.runId,
    version: row.version,
    // Parsed on every read: a stored plan of an older schemaVersion must still come back valid.
    plan: PlanSchema.parse(row.plan),
    authorKind: row.authorKind,
    authorId: row.authorId,
    parentVersion: row.parentVersion,
    reason: row.reason,
    createdAt: row.createdAt,
  };
}

export async function insertPlanVersion(
  db: Db,
  input: { runId: string; plan: Plan; authorKind: PlanVersionRecord['authorKind']; authorId: string; parentVersion: number | null; reason: Text | null },
): Promise<PlanVersionRecord> {
  // Versions are numbered 1, 2, … per run; a concurrent insert that takes the same number retries.
  for (let tries = 0; ; tries++) {
    try {
      const [row] = await db
        .insert(planVersions)
        .values({
          runId: input.runId,
          version: sql`(select coalesce(max(${planVersions.version}), 0) + 1 from ${planVersions} where ${planVersions.runId} = ${input.runId})`,
          plan: input.plan,
          authorKind: input.authorKind,
          authorId: input.authorId,
          parentVersion: input.parentVersion,
          reason: input.reason,
        })
        .returning();
      return toPlanVersion(row!);
    } catch (error) {
      if (tries < 5 && isUniqueViolation(error)) continue;
      throw error;
    }
  }
}

const planVersionByNumber = builtOnce((db) =>
  db
    .select()
    .from(planVersions)
    .where(and(eq(planVersions.runId, sql.placeholder('runId')), eq(planVersions.version, sql.placeholder('version'))))
    .prepare('plan_version_by_number'),
);

export async function selectPlanVersion(db: Db, runId: string, version: number): Promise<PlanVersionRecord | undefined> {
  const [row] = await planVersionByNumber(db).execute({ runId, version });
  return row ? toPlanVersion(row) : undefined;
}

const planVersionsOfRun = builtOnce((db) =>
  db
    .select()
    .from(planVersions)
    .where(eq(planVersions.runId, sql.placeholder('runId')))
    .orderBy(asc(planVersions.version))
    .prepare('plan_versions_of_run'),
);

export async function selectPlanVersions(db: Db, runId: string): Promise<PlanVersionRecord[]> {
  const rows = await planVersionsOfRun(db).execute({ runId });
  return rows.map(toPlanVersion);
}

type ApprovalRow = typeof approvals.$inferSelect;

const toApproval = (row: ApprovalRow): ApprovalRecord => ({
  runId: row.runId,
  planVersion: row.planVersion,
  userId: row.userId,
  decision: row.decision,
  via: row.via,
  need: row.need,
  why: row.why,
  createdAt: row.createdAt,
});

export async function insertApproval(db: Db, input: NewApproval): Promise<ApprovalRecord> {
  const [row] = await db
    .insert(approvals)
    .values({ ...input, via: input.via ?? 'person', need: input.need ?? null, why: input.why ?? null })
    .returning();
  return toApproval(row!);
}

const approvalsOfRun = builtOnce((db) =>
  db
    .select()
    .from(approvals)
    .where(eq(approvals.runId, sql.placeholder('runId')))
    .orderBy(asc(approvals.id))
    .prepare('approvals_of_run'),
);

export async function selectApprovals(db: Db, runId: string): Promise<ApprovalRecord[]> {
  const rows = await approvalsOfRun(db).execute({ runId });
  return rows.map(toApproval);
}
