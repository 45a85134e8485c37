import { asc, eq, and, sql } from 'drizzle-orm';
import type { ApprovalRecord, NewApproval, PlansPort, PlanVersionRecord } from '../../agent/ports/run-store.ts';
import { PlanSchema, type Plan } from '../../agent/model/plan/plan.ts';
import type { Text } from '../../agent/text/text.ts';
import { builtOnce } from '../engine/built-once.ts';
import type { Db } from '../database.ts';
import { isUniqueViolation } from '../errors.ts';
import { preparedShapes } from '../engine/prepared-rows.ts';
import { asDate, jsonParam } from '../engine/raw-rows.ts';
import { approvals, planVersions } from '../schema.ts';

type PlanRow = typeof planVersions.$inferSelect;

export function toPlanVersion(row: PlanRow): PlanVersionRecord {
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

export interface RawPlanRow {
  run_id: string;
  version: number;
  plan: unknown;
  author_kind: PlanVersionRecord['authorKind'];
  author_id: string;
  parent_version: number | null;
  reason: Text | null;
  created_at: Date | string;
}

export const fromRawPlan = (row: RawPlanRow): PlanVersionRecord =>
  toPlanVersion({
    runId: row.run_id,
    version: Number(row.version),
    plan: row.plan as Plan,
    authorKind: row.author_kind,
    authorId: row.author_id,
    parentVersion: row.parent_version === null ? null : Number(row.parent_version),
    reason: row.reason,
    createdAt: asDate(row.created_at),
  });

export async function insertPlanVersion(db: Db, input: Parameters<PlansPort['addPlanVersion']>[0]): Promise<PlanVersionRecord> {
  const replans = input.proposed?.replans;
  const statement = newVersionStatement(input.proposed ? (replans === undefined ? 'proposed' : 'replanned') : 'kept');
  const values = {
    runId: input.runId,
    plan: jsonParam(input.plan),
    authorKind: input.authorKind,
    authorId: input.authorId,
    parentVersion: input.parentVersion,
    reason: jsonParam(input.reason),
    updatedAt: new Date().toISOString(),
    replans: replans ?? null,
    event: jsonParam({ authorKind: input.authorKind, authorId: input.authorId, reason: input.reason }),
  };
  // Versions are numbered 1, 2, … per run; a concurrent insert that takes the same number retries.
  for (let tries = 0; ; tries++) {
    try {
      const [row] = await statement(db, values);
      return fromRawPlan(row!);
    } catch (error) {
      if (tries < 5 && isUniqueViolation(error)) continue;
      throw error;
    }
  }
}

/** `kept`: a version that is not proposed (the run keeps its current one); `replanned` also sets the run's replan count. */
type NewVersionShape = 'kept' | 'proposed' | 'replanned';

const newVersionStatement = preparedShapes<NewVersionShape, RawPlanRow>(
  (shape) => sql`with added as (
      insert into plan_versions (run_id, version, plan, author_kind, author_id, parent_version, reason)
      values (${value('runId')}, (select coalesce(max(version), 0) + 1 from plan_versions where run_id = ${value('runId')}),
        ${value('plan')}::jsonb, ${value('authorKind')}, ${value('authorId')}, ${value('parentVersion')}, ${value('reason')}::jsonb)
      returning *
    )${shape === 'kept' ? sql`` : proposedCtes(shape === 'replanned')}
    select * from added`,
  'new_plan_version',
);

const value = (name: string) => sql.placeholder(name);

/**
 * A proposed version is the run's current one, and `plan-proposed` is its event, from the same
 * statement as the version: one round trip where three writes took three.
 */
const proposedCtes = (setsReplans: boolean) => sql`, moved as (
      update runs set current_plan_version = added.version, updated_at = ${value('updatedAt')}::timestamptz,
        event_seq = event_seq + 1${setsReplans ? sql`, replans = ${value('replans')}` : sql``}
      from added where runs.id = added.run_id
      returning runs.event_seq
    ), logged as (
      insert into events (run_id, seq, type, data)
      select added.run_id, moved.event_seq, 'plan-proposed', jsonb_build_object('version', added.version) || ${value('event')}::jsonb
      from added, moved
    )`;

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

export const toApproval = (row: ApprovalRow): ApprovalRecord => ({
  runId: row.runId,
  planVersion: row.planVersion,
  userId: row.userId,
  decision: row.decision,
  via: row.via,
  need: row.need,
  why: row.why,
  digest: row.digest,
  policyHash: row.policyHash,
  policyRules: row.policyRules,
  policyGroups: row.policyGroups,
  createdAt: row.createdAt,
});

export async function insertApproval(db: Db, input: NewApproval): Promise<ApprovalRecord> {
  const [row] = await db
    .insert(approvals)
    .values({
      ...input,
      via: input.via ?? 'person',
      need: input.need ?? null,
      why: input.why ?? null,
      digest: input.digest ?? null,
      policyHash: input.policyHash ?? null,
      policyRules: input.policyRules ? [...input.policyRules] : null,
      policyGroups: input.policyGroups ? [...input.policyGroups] : null,
    })
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
