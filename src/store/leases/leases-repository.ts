/**
 * Run leases: which replica drives a run (and writes its status board) right now. A lease is a
 * conditional UPDATE on `runs.lease_owner / lease_until`; adoption picks expired ones with
 * `FOR UPDATE SKIP LOCKED` so replicas scanning at once take different runs and never wait on each other.
 */
import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { RunRecord, RunStatus } from '../../agent/ports/run-store.ts';
import { builtOnce } from '../engine/built-once.ts';
import type { Db } from '../database.ts';
import { leaseEnd } from './lease-end.ts';
import { toRunRecord } from '../runs/runs-repository.ts';
import { replicas, runs, steps } from '../schema.ts';

/** Nobody holds it, its holder stopped renewing, or it is already ours. */
const claimable = (owner: string) => or(isNull(runs.leaseOwner), isNull(runs.leaseUntil), lte(runs.leaseUntil, sql`now()`), eq(runs.leaseOwner, owner));

export async function claimRunLease(db: Db, input: { runId: string; owner: string; leaseMs: number }): Promise<boolean> {
  const rows = await db
    .update(runs)
    .set({ leaseOwner: input.owner, leaseUntil: leaseEnd(input.leaseMs) })
    .where(and(eq(runs.id, input.runId), claimable(input.owner)))
    .returning({ id: runs.id });
  return rows.length === 1;
}

export async function adoptRuns(
  db: Db,
  input: { owner: string; leaseMs: number; statuses: readonly RunStatus[]; limit: number; graceMs: number; skipLocked: boolean; ownUnexpired: boolean },
): Promise<RunRecord[]> {
  if (input.statuses.length === 0 || input.limit <= 0) return [];
  // A lease that ran out or was released is free at once. A run never leased is left alone for the grace
  // period: the replica that just created it is about to claim it. A lease still ours is taken only when
  // asked (start-up): a live replica's scan that took one adopted a run it had just created and was
  // planning, and planned it a second time (decision 030).
  const settled = or(
    input.ownUnexpired ? eq(runs.leaseOwner, input.owner) : undefined,
    lte(runs.leaseUntil, sql`now()`),
    and(isNull(runs.leaseUntil), lt(runs.updatedAt, sql`now() - ${Math.max(0, Math.round(input.graceMs))} * interval '1 millisecond'`)),
  );
  const candidates = db
    .select({ id: runs.id })
    .from(runs)
    .where(and(inArray(runs.status, [...input.statuses]), claimable(input.owner), settled))
    .orderBy(asc(runs.updatedAt))
    .limit(input.limit)
    // Skipping a row another transaction holds (a live replica appending an event) leaves it for the next scan.
    .for('update', input.skipLocked ? { skipLocked: true } : {});
  const rows = await db
    .update(runs)
    .set({ leaseOwner: input.owner, leaseUntil: leaseEnd(input.leaseMs) })
    .where(and(inArray(runs.id, candidates), claimable(input.owner)))
    .returning();
  return rows.map(toRunRecord);
}

/**
 * One heartbeat: extends the leases `owner` still holds on these runs, then on their running steps
 * (a long tool call must not look dead), and stamps the replica row. Returns the runs still held;
 * a run missing from the answer was adopted by a peer that thought this replica dead.
 */
export async function renewLeases(db: Db, input: { owner: string; leaseMs: number; runIds: readonly string[] }): Promise<string[]> {
  await db
    .insert(replicas)
    .values({ id: input.owner })
    .onConflictDoUpdate({ target: replicas.id, set: { heartbeatAt: sql`now()` } });
  if (input.runIds.length === 0) return [];
  const held = await db
    .update(runs)
    .set({ leaseUntil: leaseEnd(input.leaseMs) })
    .where(and(inArray(runs.id, [...input.runIds]), eq(runs.leaseOwner, input.owner)))
    .returning({ id: runs.id });
  const ids = held.map((row) => row.id);
  if (ids.length) {
    await db
      .update(steps)
      .set({ leaseUntil: leaseEnd(input.leaseMs) })
      .where(and(inArray(steps.runId, ids), eq(steps.leaseOwner, input.owner), eq(steps.status, 'running')));
  }
  return ids;
}

/** Released means expired now: a peer's adoption scan takes it at once (a never-leased run waits out the grace period). */
const releaseLease = builtOnce((db) =>
  db
    .update(runs)
    .set({ leaseUntil: sql`now()` })
    .where(and(eq(runs.id, sql.placeholder('runId')), eq(runs.leaseOwner, sql.placeholder('owner'))))
    .prepare('release_run_lease'),
);

export async function releaseRunLease(db: Db, input: { runId: string; owner: string }): Promise<void> {
  await releaseLease(db).execute({ runId: input.runId, owner: input.owner });
}

/**
 * How long past its lease the most overdue live lease is, in seconds (0 when none is overdue): a run
 * still executing, or a step still running, whose holder stopped renewing and that nobody adopted yet.
 */
export async function leaseLagSeconds(db: Db): Promise<number> {
  const overdue = (table: typeof runs | typeof steps, live: ReturnType<typeof inArray>) =>
    db
      .select({ lag: sql<number>`coalesce(max(extract(epoch from (now() - ${table.leaseUntil}))), 0)::float8` })
      .from(table)
      .where(and(live, lt(table.leaseUntil, sql`now()`)));
  const [[run], [step]] = await Promise.all([
    overdue(runs, inArray(runs.status, ['executing', 'rolling-back'])),
    overdue(steps, inArray(steps.status, ['running'])),
  ]);
  return Math.max(Number(run?.lag ?? 0), Number(step?.lag ?? 0));
}
