import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScheduler, type Scheduler } from '../../src/schedules/scheduler.ts';
import { previousFireTime } from '../../src/schedules/next-fire-times.ts';
import type { ScheduleRecord } from '../../src/schedules/schedules-port.ts';
import { createSchedulesStore, openDatabase, type Database } from '../../src/store/index.ts';
import { claimFire, deleteSchedule, insertSchedule, listFires } from '../../src/store/schedules-repository.ts';
import { ENGINES, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

interface Fired {
  replica: string;
  scheduleId: string;
  slot: string;
}

const silent = { info() {}, warn() {}, error() {} };

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(ENGINES)('scheduler on %s', (engine) => {
  let database: TestDatabase;
  let other: Database | undefined;
  const schedulers: Scheduler[] = [];
  beforeAll(async () => {
    database = await openTestDatabase(engine);
    if (database.url) other = await openDatabase({ url: database.url });
  });
  afterAll(async () => {
    for (const scheduler of schedulers) await scheduler.stop();
    await other?.close();
    await database.destroy();
  });

  function replica(name: string, fired: Fired[], options: { clock?: () => Date; second?: boolean; checkIntervalMs?: number } = {}): Scheduler {
    const scheduler = createScheduler({
      store: createSchedulesStore(options.second && other ? other.db : database.db),
      replicaId: name,
      logger: silent,
      clock: options.clock,
      checkIntervalMs: options.checkIntervalMs,
      fire: async (schedule: ScheduleRecord, slot: Date) => {
        fired.push({ replica: name, scheduleId: schedule.id, slot: slot.toISOString() });
      },
    });
    schedulers.push(scheduler);
    return scheduler;
  }

  it('fires each slot once across two replicas, picks up new schedules and drops removed ones', async () => {
    const fired: Fired[] = [];
    const first = replica('replica-a', fired);
    const second = replica('replica-b', fired, { second: true });
    await first.start();
    await second.start();
    // Added while both run: each replica sees it on reload (the periodic check, or an explicit call after adding).
    const schedule = await insertSchedule(database.db, {
      cron: '* * * * * *',
      timeZone: 'UTC',
      task: 'check health of http://127.0.0.1/',
      channel: 'C1',
      createdBy: 'U1',
    });
    await first.reload();
    await second.reload();
    await until(() => fired.length >= 3, 'three fires');

    const slots = fired.map((fire) => fire.slot);
    expect(new Set(slots).size).toBe(slots.length);
    const stored = await listFires(database.db, schedule.id);
    expect(stored.map((fire) => fire.slot.toISOString()).sort()).toEqual(expect.arrayContaining([...slots].sort()));

    await deleteSchedule(database.db, schedule.id);
    await first.reload();
    await second.reload();
    const afterRemoval = fired.length;
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(fired.length).toBe(afterRemoval);
    await first.stop();
    await second.stop();
  });

  it('catches up only the most recent slot missed while every replica was down, once', async () => {
    // New Year's Day at 09:00 UTC: never due while the test runs, so only catch-up can fire it.
    const schedule = await insertSchedule(database.db, {
      cron: '0 9 1 1 *',
      timeZone: 'UTC',
      task: 'cut release 2027.1 of acme/api',
      channel: 'C1',
      createdBy: 'U1',
    });
    const now = new Date(schedule.createdAt.getTime() + 3 * 366 * 86_400_000);
    const clock = () => now;
    const expectedSlot = previousFireTime(schedule.cron, 'UTC', now)!;

    const fired: Fired[] = [];
    const first = replica('replica-a', fired, { clock });
    const second = replica('replica-b', fired, { clock, second: true });
    await Promise.all([first.start(), second.start()]);
    await first.catchUp();
    await second.catchUp();

    const mine = fired.filter((fire) => fire.scheduleId === schedule.id);
    // Three New Year slots were missed; one fire, for the latest of them.
    expect(mine).toEqual([{ replica: expect.any(String), scheduleId: schedule.id, slot: expectedSlot.toISOString() }]);
    await first.stop();
    await second.stop();
  });

  it('does not catch up a slot that was already fired', async () => {
    const schedule = await insertSchedule(database.db, { cron: '0 9 1 1 *', timeZone: 'UTC', task: 'report', channel: 'C1', createdBy: 'U1' });
    const now = new Date(schedule.createdAt.getTime() + 400 * 86_400_000);
    await claimFire(database.db, schedule.id, previousFireTime(schedule.cron, 'UTC', now)!, 'earlier-replica');
    const fired: Fired[] = [];
    const scheduler = replica('replica-c', fired, { clock: () => now });
    await scheduler.start();
    expect(fired.filter((fire) => fire.scheduleId === schedule.id)).toEqual([]);
    await scheduler.stop();
  });

  it('picks up a schedule another replica added, on its periodic check, and catches it up', async () => {
    const fired: Fired[] = [];
    let now = new Date();
    const scheduler = replica('replica-d', fired, { clock: () => now, checkIntervalMs: 100 });
    await scheduler.start();
    const schedule = await insertSchedule(database.db, { cron: '0 9 1 1 *', timeZone: 'UTC', task: 'report', channel: 'C1', createdBy: 'U1' });
    now = new Date(schedule.createdAt.getTime() + 400 * 86_400_000);
    await until(() => fired.some((fire) => fire.scheduleId === schedule.id), 'the periodic check to fire the new schedule');
    expect(fired.filter((fire) => fire.scheduleId === schedule.id)).toEqual([
      { replica: 'replica-d', scheduleId: schedule.id, slot: previousFireTime(schedule.cron, 'UTC', now)!.toISOString() },
    ]);
    await scheduler.stop();
  });
});
