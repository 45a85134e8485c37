import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/index.ts';
import {
  claimFire,
  deleteSchedule,
  pruneFires,
  insertSchedule,
  lastFiredSlots,
  listFires,
  listSchedules,
  recordFireRun,
  selectSchedule,
} from '../../src/store/schedules-repository.ts';
import { ENGINES, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

describe.each(ENGINES)('schedules repository on %s', (engine) => {
  let database: TestDatabase;
  // On PostgreSQL a second pool stands in for another replica; PGlite has one connection only.
  let other: Database | undefined;
  beforeAll(async () => {
    database = await openTestDatabase(engine);
    if (database.url) other = await openDatabase({ url: database.url });
  });
  afterAll(async () => {
    await other?.close();
    await database.destroy();
  });

  const newSchedule = (overrides: { channel?: string; createdBy?: string } = {}) =>
    insertSchedule(database.db, {
      cron: '0 9 * * 1-5',
      timeZone: 'Europe/Berlin',
      task: 'triage open pull requests in acme/api',
      channel: overrides.channel ?? 'C1',
      createdBy: overrides.createdBy ?? 'U1',
    });

  it('creates, gets, lists by channel or creator, and removes schedules', async () => {
    const first = await newSchedule({ channel: 'CLIST', createdBy: 'UANN' });
    const second = await newSchedule({ channel: 'CLIST', createdBy: 'UBOB' });
    await newSchedule({ channel: 'COTHER', createdBy: 'UANN' });
    expect(await selectSchedule(database.db, first.id)).toMatchObject({ cron: '0 9 * * 1-5', timeZone: 'Europe/Berlin', enabled: true, runbookId: null });
    expect((await listSchedules(database.db, { channel: 'CLIST' })).map((s) => s.id)).toEqual([first.id, second.id]);
    expect((await listSchedules(database.db, { createdBy: 'UANN' })).map((s) => s.channel)).toEqual(['CLIST', 'COTHER']);
    expect(await deleteSchedule(database.db, first.id)).toBe(true);
    expect(await deleteSchedule(database.db, first.id)).toBe(false);
    expect(await selectSchedule(database.db, first.id)).toBeUndefined();
  });

  it('lets exactly one claimant fire a slot, whichever connection asks', async () => {
    const schedule = await newSchedule();
    const slot = new Date('2026-11-23T08:00:00Z');
    const pools = [database.db, other?.db ?? database.db];
    const claims = await Promise.all(Array.from({ length: 10 }, (_, index) => claimFire(pools[index % 2]!, schedule.id, slot, `replica-${index % 2}`)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await claimFire(pools[1]!, schedule.id, slot, 'late')).toBe(false);
    // The next slot is a new claim.
    expect(await claimFire(pools[1]!, schedule.id, new Date('2026-11-24T08:00:00Z'), 'replica-1')).toBe(true);
    const fires = await listFires(database.db, schedule.id);
    expect(fires.map((fire) => fire.slot.toISOString())).toEqual(['2026-11-24T08:00:00.000Z', '2026-11-23T08:00:00.000Z']);
  });

  it('remembers the last fired slot per schedule and the run a fire started', async () => {
    const schedule = await newSchedule();
    await claimFire(database.db, schedule.id, new Date('2026-11-20T08:00:00Z'), 'a');
    await claimFire(database.db, schedule.id, new Date('2026-11-23T08:00:00Z'), 'a');
    await recordFireRun(database.db, schedule.id, new Date('2026-11-23T08:00:00Z'), 'run_1');
    expect((await lastFiredSlots(database.db)).get(schedule.id)?.toISOString()).toBe('2026-11-23T08:00:00.000Z');
    expect((await listFires(database.db, schedule.id))[0]).toMatchObject({ runId: 'run_1', firedBy: 'a' });
  });

  it("prunes old fires but keeps each schedule's latest", async () => {
    const busy = await newSchedule();
    const quiet = await newSchedule();
    for (const day of ['01', '02', '03']) await claimFire(database.db, busy.id, new Date(`2026-01-${day}T08:00:00Z`), 'a');
    await claimFire(database.db, quiet.id, new Date('2025-06-01T08:00:00Z'), 'a');
    await pruneFires(database.db, new Date('2026-01-03T00:00:00Z'));
    expect((await listFires(database.db, busy.id)).map((fire) => fire.slot.toISOString())).toEqual(['2026-01-03T08:00:00.000Z']);
    expect((await listFires(database.db, quiet.id)).map((fire) => fire.slot.toISOString())).toEqual(['2025-06-01T08:00:00.000Z']);
    expect((await lastFiredSlots(database.db)).get(quiet.id)?.toISOString()).toBe('2025-06-01T08:00:00.000Z');
  });

  it('does not fire a slot of a schedule that was removed', async () => {
    const schedule = await newSchedule();
    await deleteSchedule(database.db, schedule.id);
    expect(await claimFire(database.db, schedule.id, new Date('2026-11-23T08:00:00Z'), 'a')).toBe(false);
  });
});
