import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Result } from '../agent/model/errors.ts';
import { PlanSchema, type Plan } from '../agent/model/plan/plan.ts';
import type { RunStatus } from '../agent/ports/runs.ts';
import type { RunbooksPort, NewStoredRunbook } from '../runbooks/runbooks-port.ts';
import { RunbookPlanSchema, type Runbook } from '../runbooks/runbook.ts';
import type { Db } from './database.ts';
import { isUniqueViolation } from './errors.ts';
import { newId } from './ids.ts';
import { planVersions, runbooks, runs } from './schema.ts';

type RunbookRow = typeof runbooks.$inferSelect;

function toRunbook(row: RunbookRow): Runbook | undefined {
  // Parsed on every read; a row that no longer parses is skipped rather than breaking every match.
  const plan = RunbookPlanSchema.safeParse(row.plan);
  if (!plan.success) return undefined;
  const from = row.source.startsWith('run:') ? `saved from ${row.source.slice(4)}` : `saved from ${row.source}`;
  return {
    name: row.name,
    pattern: row.pattern,
    // Who saved it is `createdBy` (a Slack user id); a surface names them its own way.
    description: from,
    preApproved: row.preApproved,
    plan: plan.data,
    params: row.params,
    source: row.source,
    createdBy: row.createdBy,
  };
}

async function insertRunbook(db: Db, input: NewStoredRunbook): Promise<Result<Runbook>> {
  try {
    const [row] = await db
      .insert(runbooks)
      .values({ id: newId('rbk'), ...input, plan: input.plan })
      .returning();
    const runbook = toRunbook(row!);
    return runbook ? { ok: true, value: runbook } : { ok: false, error: 'the runbook plan did not survive storage' };
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, error: `a runbook named ${input.name} already exists` };
    throw error;
  }
}

async function listStoredRunbooks(db: Db): Promise<Runbook[]> {
  const rows = await db.select().from(runbooks).orderBy(asc(runbooks.name));
  return rows.map(toRunbook).filter((runbook): runbook is Runbook => runbook !== undefined);
}

async function deleteStoredRunbook(db: Db, name: string): Promise<boolean> {
  const rows = await db.delete(runbooks).where(eq(runbooks.name, name)).returning({ id: runbooks.id });
  return rows.length === 1;
}

/** A run's task, status and last plan version: what "Save as runbook" starts from. */
async function selectRunWithLastPlan(db: Db, runId: string): Promise<{ task: string; status: RunStatus; plan: Plan } | undefined> {
  const [row] = await db
    .select({ task: runs.task, status: runs.status, plan: planVersions.plan })
    .from(runs)
    .innerJoin(planVersions, eq(planVersions.runId, runs.id))
    .where(eq(runs.id, runId))
    .orderBy(desc(planVersions.version))
    .limit(1);
  return row ? { task: row.task, status: row.status, plan: PlanSchema.parse(row.plan) } : undefined;
}

/** Tasks and final plans of runs that succeeded, newest first: the planner's examples. */
async function selectSucceededRunPlans(db: Db, limit: number): Promise<{ task: string; plan: Plan }[]> {
  const rows = await db
    .select({ task: runs.task, plan: planVersions.plan })
    .from(runs)
    .innerJoin(planVersions, and(eq(planVersions.runId, runs.id), eq(planVersions.version, runs.currentPlanVersion)))
    .where(eq(runs.status, 'succeeded'))
    .orderBy(sql`${runs.finishedAt} desc nulls last`, desc(runs.createdAt))
    .limit(limit);
  return rows.flatMap((row) => {
    const plan = PlanSchema.safeParse(row.plan);
    return plan.success ? [{ task: row.task, plan: plan.data }] : [];
  });
}

/** The runbook catalog's port on our tables. */
export function createRunbooksStore(db: Db): RunbooksPort {
  return {
    listSaved: () => listStoredRunbooks(db),
    save: (input) => insertRunbook(db, input),
    remove: (name) => deleteStoredRunbook(db, name),
    runWithLastPlan: (runId) => selectRunWithLastPlan(db, runId),
    succeededRunPlans: (limit) => selectSucceededRunPlans(db, limit),
  };
}
