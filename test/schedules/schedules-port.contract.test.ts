import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulesPort } from '../../src/schedules/schedules-port.ts';
import { createSchedulesStore, openDatabase, type Database } from '../../src/store/index.ts';
import { listFires } from '../../src/store/schedules-repository.ts';
import { ENGINES, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

// The scheduler's port as the store implements it: every method, on both engines.
describe.each(ENGINES)('schedules port contract on %s', (engine) => {
  let database: TestDatabase;
  // On PostgreSQL a second pool stands in for another replica; PGlite has one connection only.
  let other: Database | undefined;
  let port: SchedulesPort;
  let otherPort: SchedulesPort;
  beforeAll(async () => {
    database = await openTestDatabase(engine);
    if (database.url) other = await openDatabase({ url: database.url });
    port = createSchedulesStore(database.db);
    otherPort = other ? createSchedulesStore(other.db) : port;
  });
  afterAll(async () => {
    await other?.close();
    await database.destroy();
  });

  const newSchedule = (overrides: { channel?: string; createdBy?: string } = {}) =>
    port.insert({
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
    expect(await port.get(first.id)).toMatchObject({ cron: '0 9 * * 1-5', timeZone: 'Europe/Berlin', enabled: true, runbookId: null });
    expect((await port.list({ channel: 'CLIST' })).map((s) => s.id)).toEqual([first.id, second.id]);
    expect((await port.list({ createdBy: 'UANN' })).map((s) => s.channel)).toEqual(['CLIST', 'COTHER']);
    expect(await port.remove(first.id)).toBe(true);
    expect(await port.remove(first.id)).toBe(false);
    expect(await port.get(first.id)).toBeUndefined();
    expect((await port.list({ channel: 'CLIST' })).map((s) => s.id)).toEqual([second.id]);
  });

  it('lets exactly one claimant fire a slot, whichever connection asks', async () => {
    const schedule = await newSchedule();
    const slot = new Date('2026-11-23T08:00:00Z');
    const ports = [port, otherPort];
    const claims = await Promise.all(Array.from({ length: 10 }, (_, index) => ports[index % 2]!.claimFire(schedule.id, slot, `replica-${index % 2}`)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await otherPort.claimFire(schedule.id, slot, 'late')).toBe(false);
    // The next slot is a new claim.
    expect(await otherPort.claimFire(schedule.id, new Date('2026-11-24T08:00:00Z'), 'replica-1')).toBe(true);
    const fires = await listFires(database.db, schedule.id);
    expect(fires.map((fire) => fire.slot.toISOString())).toEqual(['2026-11-24T08:00:00.000Z', '2026-11-23T08:00:00.000Z']);
  });

  it('remembers the last fired slot per schedule and the run a fire started', async () => {
    const schedule = await newSchedule();
    await port.claimFire(schedule.id, new Date('2026-11-20T08:00:00Z'), 'a');
    await port.claimFire(schedule.id, new Date('2026-11-23T08:00:00Z'), 'a');
    await port.recordFireRun(schedule.id, new Date('2026-11-23T08:00:00Z'), 'run_1');
    expect((await port.lastFiredSlots()).get(schedule.id)?.toISOString()).toBe('2026-11-23T08:00:00.000Z');
    expect((await listFires(database.db, schedule.id))[0]).toMatchObject({ runId: 'run_1', firedBy: 'a' });
  });

  it("prunes old fires but keeps each schedule's latest", async () => {
    const busy = await newSchedule();
    const quiet = await newSchedule();
    for (const day of ['01', '02', '03']) await port.claimFire(busy.id, new Date(`2026-01-${day}T08:00:00Z`), 'a');
    await port.claimFire(quiet.id, new Date('2025-06-01T08:00:00Z'), 'a');
    expect(await port.pruneFires(new Date('2026-01-03T00:00:00Z'))).toBe(2);
    expect((await listFires(database.db, busy.id)).map((fire) => fire.slot.toISOString())).toEqual(['2026-01-03T08:00:00.000Z']);
    expect((await listFires(database.db, quiet.id)).map((fire) => fire.slot.toISOString())).toEqual(['2025-06-01T08:00:00.000Z']);
    expect((await port.lastFiredSlots()).get(quiet.id)?.toISOString()).toBe('2025-06-01T08:00:00.000Z');
  });

  it('does not fire a slot of a schedule that was removed', async () => {
    const schedule = await newSchedule();
    await port.remove(schedule.id);
    expect(await port.claimFire(schedule.id, new Date('2026-11-23T08:00:00Z'), 'a')).toBe(false);
  });
});
