/**
 * What drivers read before their first step, for many runs at once. After a restart a thousand drivers
 * start together; each read its run, plan version, approvals, steps, escalations and token total on its
 * own (six statements a run, on PGlite's one connection one after another). Here it is six statements
 * for all of them: the run rows, then the rest of the executing ones at once.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { PassOpening } from '../../agent/ports/openings.ts';
import type { RunRecord } from '../../agent/ports/runs.ts';
import type { Db } from '../database.ts';
import { toApproval, toPlanVersion } from '../plans/plans-repository.ts';
import { approvals, escalations, llmUsage, planVersions, runs, steps } from '../schema.ts';
import { toStep } from '../steps/steps-repository.ts';
import { toRunRecord } from './runs-repository.ts';

export async function selectPassOpenings(db: Db, runIds: readonly string[]): Promise<PassOpening[]> {
  if (runIds.length === 0) return [];
  const found = (
    await db
      .select()
      .from(runs)
      .where(inArray(runs.id, [...runIds]))
  ).map(toRunRecord);
  const executing = found.filter((run) => run.status === 'executing' && run.currentPlanVersion !== null);
  const details = executing.length ? await readDetails(db, executing) : undefined;
  return found.map((run) => ({
    run,
    version: details?.versions.get(run.id),
    approvals: details?.approvals.get(run.id) ?? [],
    steps: details?.steps.get(run.id) ?? [],
    escalations: (details?.escalations.get(run.id) ?? []).map(({ planVersion, stepId, status }) => ({ planVersion, stepId, status })),
    tokens: details?.tokens.get(run.id) ?? 0,
  }));
}

/** Rows by their run, in the order read. */
function byRun<T extends { runId: string | null }>(rows: readonly T[]): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const row of rows) {
    if (row.runId === null) continue;
    const mine = grouped.get(row.runId);
    if (mine) mine.push(row);
    else grouped.set(row.runId, [row]);
  }
  return grouped;
}

async function readDetails(db: Db, executing: readonly RunRecord[]) {
  const ids = executing.map((run) => run.id);
  const [versionRows, approvalRows, stepRows, escalationRows, usageRows] = await Promise.all([
    db.select().from(planVersions).where(inArray(planVersions.runId, ids)),
    db.select().from(approvals).where(inArray(approvals.runId, ids)).orderBy(approvals.id),
    db.select().from(steps).where(inArray(steps.runId, ids)).orderBy(steps.runId, steps.planVersion, steps.createdAt, steps.stepId),
    db
      .select({ runId: escalations.runId, planVersion: escalations.planVersion, stepId: escalations.stepId, status: escalations.status })
      .from(escalations)
      .where(and(inArray(escalations.runId, ids), eq(escalations.status, 'open'))),
    selectTokensOf(db, ids),
  ]);
  // Each run's version as its row named it when read (a replan since is the next pass's to see); only those are parsed.
  const named = new Map(executing.map((run) => [run.id, run.currentPlanVersion]));
  const versions = versionRows.filter((row) => named.get(row.runId) === row.version);
  return {
    versions: new Map(versions.map((row) => [row.runId, toPlanVersion(row)])),
    approvals: byRun(approvalRows.map(toApproval)),
    steps: byRun(stepRows.map(toStep)),
    escalations: byRun(escalationRows),
    tokens: usageRows,
  };
}

/** Each run's model tokens so far; runs without usage are absent (0). */
export async function selectTokensOf(db: Db, runIds: readonly string[]): Promise<Map<string, number>> {
  if (runIds.length === 0) return new Map();
  const rows = await db
    .select({ runId: llmUsage.runId, tokens: sql<number>`coalesce(sum(${llmUsage.inputTokens} + ${llmUsage.outputTokens}), 0)::float8` })
    .from(llmUsage)
    .where(inArray(llmUsage.runId, [...runIds]))
    .groupBy(llmUsage.runId);
  return new Map(rows.flatMap((row) => (row.runId === null ? [] : [[row.runId, Number(row.tokens)]])));
}
