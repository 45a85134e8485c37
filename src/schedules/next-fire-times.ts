import { parseCron, type CronExpression } from './cron-expression.ts';
import { instantForWallTime, steadyOffsetOn, wallTimeAsUtc, wallTimeAt, type WallTime } from './zoned-time.ts';

// A cron that never matches ("0 0 30 2 *") must not walk forever.
const MAX_DAYS = 366 * 5;
// Daylight-saving shifts move a wall time by at most an hour; candidates nearer than this to the bound are kept.
const DST_MARGIN_S = 3600;

interface Candidate {
  at: Date;
  secondOfDay: number;
}

function toExpression(cron: CronExpression | string): CronExpression {
  if (typeof cron !== 'string') return cron;
  const parsed = parseCron(cron);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

function* matchingDays(
  cron: CronExpression,
  start: WallTime,
  direction: 1 | -1,
  days: number,
): Generator<{ year: number; month: number; day: number; index: number }> {
  for (let index = 0; index <= days; index++) {
    const date = new Date(Date.UTC(start.year, start.month - 1, start.day + direction * index));
    const month = date.getUTCMonth() + 1;
    if (!cron.months.has(month) || !cron.daysOfMonth.has(date.getUTCDate()) || !cron.daysOfWeek.has(date.getUTCDay())) continue;
    yield { year: date.getUTCFullYear(), month, day: date.getUTCDate(), index };
  }
}

/**
 * The cron's times of day in order, from `bound` on (forward) or down from it (backward): whole hours and minutes
 * on the wrong side of it are skipped rather than walked second by second.
 */
function* timesOfDay(
  cron: CronExpression,
  direction: 1 | -1,
  bound = direction === 1 ? 0 : 86_400,
): Generator<{ hour: number; minute: number; second: number; secondOfDay: number }> {
  const order = <T>(values: T[]): T[] => (direction === 1 ? values : [...values].reverse());
  const before = (first: number, last: number) => (direction === 1 ? last < bound : first > bound);
  for (const hour of order(cron.hours)) {
    if (before(hour * 3600, hour * 3600 + 3599)) continue;
    for (const minute of order(cron.minutes)) {
      const start = hour * 3600 + minute * 60;
      if (before(start, start + 59)) continue;
      for (const second of order(cron.seconds)) yield { hour, minute, second, secondOfDay: start + second };
    }
  }
}

/**
 * The instant of a wall time on this date. On a date whose offset does not change it is plain arithmetic, and
 * wall order is instant order, so no margin is needed; asking Intl for every second of an every-second cron cost
 * most of a second of CPU per schedule command.
 */
function instantOn(
  day: Omit<WallTime, 'hour' | 'minute' | 'second'>,
  time: Pick<WallTime, 'hour' | 'minute' | 'second'>,
  steady: number | undefined,
  timeZone: string,
) {
  const wall = { ...day, ...time };
  return steady === undefined ? instantForWallTime(wall, timeZone) : new Date(wallTimeAsUtc(wall) - steady);
}

/** The next `count` instants after `from` (exclusive) at which the cron fires in the zone. */
export function nextFireTimes(cron: CronExpression | string, timeZone: string, from: Date, count: number): Date[] {
  const expression = toExpression(cron);
  const start = wallTimeAt(from, timeZone);
  const startSecondOfDay = start.hour * 3600 + start.minute * 60 + start.second;
  const found: Candidate[] = [];
  for (const day of matchingDays(expression, start, 1, MAX_DAYS)) {
    const steady = steadyOffsetOn(day, timeZone);
    const margin = steady === undefined ? DST_MARGIN_S : 0;
    let stopAfter = Infinity;
    for (const time of timesOfDay(expression, 1, day.index === 0 ? startSecondOfDay - margin : 0)) {
      if (day.index === 0 && time.secondOfDay < startSecondOfDay - margin) continue;
      if (time.secondOfDay > stopAfter) break;
      const at = instantOn(day, time, steady, timeZone);
      if (at && at.getTime() > from.getTime()) found.push({ at, secondOfDay: time.secondOfDay });
      // Near a daylight-saving change wall order and instant order can differ: look an hour further, then sort.
      if (found.length >= count && stopAfter === Infinity) stopAfter = time.secondOfDay + margin;
    }
    if (found.length >= count) break;
  }
  return found
    .map((candidate) => candidate.at)
    .sort((a, b) => a.getTime() - b.getTime())
    .slice(0, count);
}

/** The latest instant at or before `at` when the cron fires, not earlier than `notBefore` (exclusive); undefined if none. */
export function previousFireTime(cron: CronExpression | string, timeZone: string, at: Date, notBefore?: Date): Date | undefined {
  const expression = toExpression(cron);
  const start = wallTimeAt(at, timeZone);
  const startSecondOfDay = start.hour * 3600 + start.minute * 60 + start.second;
  const days = notBefore ? Math.min(MAX_DAYS, Math.ceil((at.getTime() - notBefore.getTime()) / 86_400_000) + 1) : MAX_DAYS;
  let best: Date | undefined;
  for (const day of matchingDays(expression, start, -1, days)) {
    const steady = steadyOffsetOn(day, timeZone);
    const margin = steady === undefined ? DST_MARGIN_S : 0;
    let stopBelow = -Infinity;
    for (const time of timesOfDay(expression, -1, day.index === 0 ? startSecondOfDay + margin : 86_400)) {
      if (day.index === 0 && time.secondOfDay > startSecondOfDay + margin) continue;
      if (time.secondOfDay < stopBelow) break;
      const instant = instantOn(day, time, steady, timeZone);
      if (instant && instant.getTime() <= at.getTime() && (!best || instant.getTime() > best.getTime())) best = instant;
      if (best && stopBelow === -Infinity) stopBelow = time.secondOfDay - margin;
    }
    if (best) break;
  }
  if (best && notBefore && best.getTime() <= notBefore.getTime()) return undefined;
  return best;
}

/** "Mon, Nov 23, 2026, 09:00 EST": how a person in that zone reads a fire time. */
export function formatFireTime(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).format(at);
}
