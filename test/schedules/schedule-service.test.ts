import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScheduleService } from '../../src/schedules/schedule-service.ts';
import { createSchedulesStore } from '../../src/store/index.ts';
import { DEFAULT_ENGINE, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

describe('schedule service', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(DEFAULT_ENGINE);
  });
  afterAll(() => database.destroy());

  it("stores a schedule from a sentence and echoes its cron and next three fire times in the requester's zone", async () => {
    let changes = 0;
    const service = createScheduleService({
      store: createSchedulesStore(database.db),
      clock: () => new Date('2026-10-30T16:00:00Z'),
      onChange: async () => void changes++,
    });
    const created = await service.create({
      text: 'every weekday at 09:00 triage open PRs in acme/api',
      channel: 'C1',
      createdBy: 'U1',
      timeZone: 'America/New_York',
    });
    if (!created.ok) throw new Error(created.error);
    expect(created.value).toMatchObject({
      cron: '0 9 * * 1-5',
      timeZone: 'America/New_York',
      task: 'triage open PRs in acme/api',
      nextFires: ['Mon, Nov 2, 2026, 09:00 EST', 'Tue, Nov 3, 2026, 09:00 EST', 'Wed, Nov 4, 2026, 09:00 EST'],
    });
    expect(changes).toBe(1);
    expect((await service.list({ channel: 'C1' })).map((schedule) => schedule.id)).toEqual([created.value.id]);
    expect(await service.remove(created.value.id)).toBe(true);
    expect(await service.get(created.value.id)).toBeUndefined();
    expect(changes).toBe(2);
  });

  it('refuses what it cannot schedule, saying why', async () => {
    const service = createScheduleService({ store: createSchedulesStore(database.db) });
    expect(await service.create({ text: 'whenever you like triage', channel: 'C1', createdBy: 'U1', timeZone: 'UTC' })).toEqual({
      ok: false,
      error: expect.stringContaining('every weekday at 09:00 <task>'),
    });
    expect(await service.create({ text: 'every day at 9am triage', channel: 'C1', createdBy: 'U1', timeZone: 'Mars/Olympus' })).toEqual({
      ok: false,
      error: expect.stringContaining('not a time zone'),
    });
    expect(await service.list({ channel: 'C1' })).toEqual([]);
  });
});
