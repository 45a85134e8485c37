import { createTask } from 'node-cron';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { formatFireTime, nextFireTimes, previousFireTime } from '../../src/schedules/next-fire-times.ts';
import { parseSchedule } from '../../src/schedules/parse-schedule.ts';
import { wallTimeAsUtc, wallTimeAt } from '../../src/schedules/zoned-time.ts';

const iso = (dates: Date[]) => dates.map((date) => date.toISOString());

describe('nextFireTimes', () => {
  it("gives the next three weekday mornings in the requester's zone, across the end of daylight saving time", () => {
    const parsed = parseSchedule('every weekday at 09:00 triage open PRs in acme/api');
    if (!parsed.ok) throw new Error(parsed.error);
    // Friday 30 Oct 2026, noon in New York; clocks go back on Sunday 1 Nov.
    const times = nextFireTimes(parsed.value.cron, 'America/New_York', new Date('2026-10-30T16:00:00Z'), 3);
    // 09:00 EST is 14:00 UTC (it was 13:00 UTC under EDT), and the weekend is skipped.
    expect(iso(times)).toEqual(['2026-11-02T14:00:00.000Z', '2026-11-03T14:00:00.000Z', '2026-11-04T14:00:00.000Z']);
    expect(times.map((time) => formatFireTime(time, 'America/New_York'))).toEqual([
      'Mon, Nov 2, 2026, 09:00 EST',
      'Tue, Nov 3, 2026, 09:00 EST',
      'Wed, Nov 4, 2026, 09:00 EST',
    ]);
  });

  it('keeps 09:00 local when daylight saving time begins', () => {
    const times = nextFireTimes('0 9 * * *', 'America/New_York', new Date('2026-03-07T15:00:00Z'), 3);
    expect(iso(times)).toEqual(['2026-03-08T13:00:00.000Z', '2026-03-09T13:00:00.000Z', '2026-03-10T13:00:00.000Z']);
    expect(formatFireTime(times[0]!, 'America/New_York')).toBe('Sun, Mar 8, 2026, 09:00 EDT');
  });

  it('agrees with node-cron around daylight-saving changes: no 02:30 on the spring-forward night, one 01:30 on the fall-back night', () => {
    expect(iso(nextFireTimes('30 2 * * *', 'America/New_York', new Date('2026-03-07T12:00:00Z'), 2))).toEqual([
      '2026-03-09T06:30:00.000Z',
      '2026-03-10T06:30:00.000Z',
    ]);
    // 01:30 happens twice on 1 Nov; node-cron fires the first (EDT) one only, so a catch-up must not name the second.
    expect(iso(nextFireTimes('30 1 * * *', 'America/New_York', new Date('2026-10-31T12:00:00Z'), 2))).toEqual([
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
    expect(previousFireTime('30 1 * * *', 'America/New_York', new Date('2026-11-01T07:00:00Z'))?.toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(iso(nextFireTimes('*/30 * * * *', 'America/New_York', new Date('2026-11-01T05:10:00Z'), 3))).toEqual([
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T07:00:00.000Z',
      '2026-11-01T07:30:00.000Z',
    ]);
  });

  it('handles minute steps, monthly dates and another zone', () => {
    expect(iso(nextFireTimes('*/15 * * * *', 'UTC', new Date('2026-01-01T10:07:00Z'), 3))).toEqual([
      '2026-01-01T10:15:00.000Z',
      '2026-01-01T10:30:00.000Z',
      '2026-01-01T10:45:00.000Z',
    ]);
    const monthly = nextFireTimes('0 8 1 * *', 'Europe/Berlin', new Date('2026-01-15T00:00:00Z'), 3);
    expect(iso(monthly)).toEqual(['2026-02-01T07:00:00.000Z', '2026-03-01T07:00:00.000Z', '2026-04-01T06:00:00.000Z']);
    expect(formatFireTime(monthly[2]!, 'Asia/Kolkata')).toBe('Wed, Apr 1, 2026, 11:30 GMT+5:30');
  });
});

describe('previousFireTime', () => {
  it('finds the latest slot at or before a moment, bounded below', () => {
    expect(previousFireTime('0 9 * * 1-5', 'America/New_York', new Date('2026-11-02T12:00:00Z'))?.toISOString()).toBe('2026-10-30T13:00:00.000Z');
    expect(previousFireTime('0 9 * * 1-5', 'America/New_York', new Date('2026-11-02T14:00:00Z'))?.toISOString()).toBe('2026-11-02T14:00:00.000Z');
    expect(previousFireTime('0 9 * * 1-5', 'America/New_York', new Date('2026-11-02T12:00:00Z'), new Date('2026-10-30T13:00:00Z'))).toBeUndefined();
  });
});

describe('agreement with node-cron', () => {
  // The scheduler's slots come from node-cron and its catch-up slots from nextFireTimes/previousFireTime:
  // if the two disagreed, one slot could fire twice under two names.
  it.each([
    ['30 1 * * *', 'America/New_York', '2026-10-31T12:00:00Z'],
    ['*/30 * * * *', 'America/New_York', '2026-11-01T05:10:00Z'],
    ['30 2 * * *', 'America/New_York', '2026-03-07T12:00:00Z'],
    ['0 9 * * 1-5', 'America/New_York', '2026-10-30T16:00:00Z'],
    ['0 8 1 * *', 'Europe/Berlin', '2026-03-15T00:00:00Z'],
    ['15 */2 * * 0,6', 'Asia/Kolkata', '2026-06-05T23:00:00Z'],
    ['0 0 * * *', 'Australia/Lord_Howe', '2026-04-03T00:00:00Z'],
  ])('%s in %s from %s', async (cron, timeZone, from) => {
    const task = createTask(cron, () => {}, { timezone: timeZone });
    vi.useFakeTimers({ toFake: ['Date'], now: new Date(from) });
    try {
      expect(iso(nextFireTimes(cron, timeZone, new Date(from), 4))).toEqual(iso(task.getNextRuns(4)));
    } finally {
      vi.useRealTimers();
      await task.destroy();
    }
  });
});

describe('the arithmetic shortcut on days without a daylight-saving change', () => {
  // On a day whose offset does not change, fire times are computed without asking Intl for each one. These
  // properties hold whether or not a change is near: instants around each zone's changes of 2026 are drawn.
  const changes: Record<string, string[]> = {
    'America/New_York': ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z'],
    'Europe/Berlin': ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z'],
    'Australia/Lord_Howe': ['2026-04-04T15:00:00Z', '2026-10-03T15:30:00Z'],
    'Asia/Kolkata': ['2026-06-01T00:00:00Z'],
    UTC: ['2026-01-01T00:00:00Z'],
  };
  const field = (values: number) => fc.oneof(fc.constant('*'), fc.integer({ min: 0, max: values - 1 }).map(String), fc.constantFrom('*/7', '*/15', '*/30'));
  const cases = fc.record({
    cron: fc.tuple(field(60), fc.oneof(fc.constant('0'), field(60)), field(24)).map(([second, minute, hour]) => `${second} ${minute} ${hour} * * *`),
    zone: fc.constantFrom(...Object.keys(changes)),
    pick: fc.nat(),
    offsetS: fc.integer({ min: -2 * 86_400, max: 2 * 86_400 }),
  });

  /** The instant's wall time comes twice (a fall-back hour, or half hour on Lord Howe): the same wall time that long before or after. */
  const repeated = (at: Date, zone: string) =>
    [-3_600_000, -1_800_000, 1_800_000, 3_600_000].some(
      (shift) => wallTimeAsUtc(wallTimeAt(new Date(at.getTime() + shift), zone)) === wallTimeAsUtc(wallTimeAt(at, zone)),
    );

  it('agrees with node-cron around daylight-saving changes, every-second crons included', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async ({ cron, zone, pick, offsetS }) => {
        const list = changes[zone]!;
        const from = new Date(new Date(list[pick % list.length]!).getTime() + offsetS * 1000);
        // Known and left: inside a fall-back hour (a wall time that comes twice), node-cron's list of next runs
        // jumps between the two passes, while this module gives each wall time's first instant, as node-cron fires.
        fc.pre(!repeated(from, zone) && nextFireTimes(cron, zone, from, 3).every((at) => !repeated(at, zone)));
        const task = createTask(cron, () => {}, { timezone: zone });
        vi.useFakeTimers({ toFake: ['Date'], now: from });
        try {
          expect(iso(nextFireTimes(cron, zone, from, 3))).toEqual(iso(task.getNextRuns(3)));
        } finally {
          vi.useRealTimers();
          await task.destroy();
        }
      }),
      { numRuns: 80 },
    );
  });

  it('steps back to the fire before each fire', () => {
    fc.assert(
      fc.property(cases, ({ cron, zone, pick, offsetS }) => {
        const list = changes[zone]!;
        const from = new Date(new Date(list[pick % list.length]!).getTime() + offsetS * 1000);
        const fires = nextFireTimes(cron, zone, from, 3);
        for (let index = 0; index < fires.length; index++) {
          expect(previousFireTime(cron, zone, fires[index]!)?.toISOString()).toBe(fires[index]!.toISOString());
          if (index > 0) expect(previousFireTime(cron, zone, new Date(fires[index]!.getTime() - 1))?.toISOString()).toBe(fires[index - 1]!.toISOString());
        }
      }),
      { numRuns: 80 },
    );
  });
});
