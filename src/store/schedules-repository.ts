import { and, asc, desc, eq, lt, max, sql, type SQL } from 'drizzle-orm';
import type { NewSchedule, ScheduleRecord, SchedulesPort } from '../schedules/schedules-port.ts';
import type { Db } from './database.ts';
import { isForeignKeyViolation } from './errors.ts';
import { newId } from './ids.ts';
import { cronFires, schedules } from './schema.ts';

export async function insertSchedule(db: Db, input: NewSchedule): Promise<ScheduleRecord> {
  const [row] = await db
    .insert(schedules)
    .values({ id: newId('sch'), ...input, runbookId: input.runbookId ?? null })
    .returning();
  return row!;
}

export async function selectSchedule(db: Db, id: string): Promise<ScheduleRecord | undefined> {
  const [row] = await db.select().from(schedules).where(eq(schedules.id, id));
  return row;
}

/** Oldest first, so a list reads in the order the schedules were made. */
export async function listSchedules(db: Db, filter: { channel?: string; createdBy?: string; enabledOnly?: boolean } = {}): Promise<ScheduleRecord[]> {
  const conditions: SQL[] = [];
  if (filter.channel !== undefined) conditions.push(eq(schedules.channel, filter.channel));
  if (filter.createdBy !== undefined) conditions.push(eq(schedules.createdBy, filter.createdBy));
  if (filter.enabledOnly) conditions.push(eq(schedules.enabled, true));
  return db
    .select()
    .from(schedules)
    .where(and(...conditions))
    .orderBy(asc(schedules.createdAt), asc(schedules.id));
}

/** Its fire rows go with it (ON DELETE CASCADE). False when there was no such schedule. */
export async function deleteSchedule(db: Db, id: string): Promise<boolean> {
  const rows = await db.delete(schedules).where(eq(schedules.id, id)).returning({ id: schedules.id });
  return rows.length === 1;
}

/**
 * Claims one slot of a schedule for this replica. True for exactly one caller per (schedule, slot), whichever
 * process or connection asks: the primary key decides, not a read-then-write.
 */
export async function claimFire(db: Db, scheduleId: string, slot: Date, replicaId: string): Promise<boolean> {
  try {
    const rows = await db.insert(cronFires).values({ scheduleId, slot, firedBy: replicaId }).onConflictDoNothing().returning({ slot: cronFires.slot });
    return rows.length === 1;
  } catch (error) {
    // The schedule was removed between loading and firing: nothing to fire.
    if (isForeignKeyViolation(error)) return false;
    throw error;
  }
}

/** Links a fired slot to the run it started, for `tandem show` and for people asking "did it run?". */
export async function recordFireRun(db: Db, scheduleId: string, slot: Date, runId: string): Promise<void> {
  await db
    .update(cronFires)
    .set({ runId })
    .where(and(eq(cronFires.scheduleId, scheduleId), eq(cronFires.slot, slot)));
}

/** The latest slot fired per schedule: the lower bound for catching up what every replica missed. */
export async function lastFiredSlots(db: Db): Promise<Map<string, Date>> {
  const rows = await db
    .select({ scheduleId: cronFires.scheduleId, slot: max(cronFires.slot) })
    .from(cronFires)
    .groupBy(cronFires.scheduleId);
  return new Map(rows.filter((row) => row.slot !== null).map((row) => [row.scheduleId, new Date(row.slot!)]));
}

/**
 * Forgets fires older than `before`, except each schedule's latest (catch-up needs it as its lower bound).
 * An every-minute schedule would otherwise add half a million rows a year.
 */
export async function pruneFires(db: Db, before: Date): Promise<number> {
  const rows = await db
    .delete(cronFires)
    .where(
      and(
        lt(cronFires.slot, before),
        sql`${cronFires.slot} < (select max(latest.slot) from ${cronFires} as latest where latest.schedule_id = ${cronFires.scheduleId})`,
      ),
    )
    .returning({ slot: cronFires.slot });
  return rows.length;
}

export async function listFires(db: Db, scheduleId: string): Promise<{ slot: Date; firedBy: string; runId: string | null }[]> {
  return db
    .select({ slot: cronFires.slot, firedBy: cronFires.firedBy, runId: cronFires.runId })
    .from(cronFires)
    .where(eq(cronFires.scheduleId, scheduleId))
    .orderBy(desc(cronFires.slot));
}

/** The scheduler's port on our tables. */
export function createSchedulesStore(db: Db): SchedulesPort {
  return {
    insert: (input) => insertSchedule(db, input),
    get: (id) => selectSchedule(db, id),
    list: (filter) => listSchedules(db, filter),
    remove: (id) => deleteSchedule(db, id),
    claimFire: (scheduleId, slot, replicaId) => claimFire(db, scheduleId, slot, replicaId),
    recordFireRun: (scheduleId, slot, runId) => recordFireRun(db, scheduleId, slot, runId),
    lastFiredSlots: () => lastFiredSlots(db),
    pruneFires: (before) => pruneFires(db, before),
  };
}
