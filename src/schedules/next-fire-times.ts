import { parseCron, type CronExpression } from './cron-expression.ts';
import { instantForWallTime, wallTimeAt, type WallTime } from './zoned-time.ts';

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

function* timesOfDay(cron: CronExpression, direction: 1 | -1): Generator<{ hour: number; minute: number; second: number; secondOfDay: number }> {
  const order = <T>(values: T[]): T[] => (direction === 1 ? values : [...values].reverse());
  for (const hour of order(cron.hours)) {
    for (const minute of order(cron.minutes)) {
      for (const second of order(cron.seconds)) yield { hour, minute, second, secondOfDay: hour * 3600 + minute * 60 + second };
    }
  }
}

/** The next `count` instants after `from` (exclusive) at which the cron fires in the zone. */
export function nextFireTimes(cron: CronExpression | string, timeZone: string, from: Date, count: number): Date[] {
  const expression = toExpression(cron);
  const start = wallTimeAt(from, timeZone);
  const startSecondOfDay = start.hour * 3600 + start.minute * 60 + start.second;
  const found: Candidate[] = [];
  for (const day of matchingDays(expression, start, 1, MAX_DAYS)) {
    let stopAfter = Infinity;
    for (const time of timesOfDay(expression, 1)) {
      if (day.index === 0 && time.secondOfDay < startSecondOfDay - DST_MARGIN_S) continue;
      if (time.secondOfDay > stopAfter) break;
      const at = instantForWallTime({ ...day, ...time }, timeZone);
      if (at && at.getTime() > from.getTime()) found.push({ at, secondOfDay: time.secondOfDay });
      // Near a daylight-saving change wall order and instant order can differ: look an hour further, then sort.
      if (found.length >= count && stopAfter === Infinity) stopAfter = time.secondOfDay + DST_MARGIN_S;
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
    let stopBelow = -Infinity;
    for (const time of timesOfDay(expression, -1)) {
      if (day.index === 0 && time.secondOfDay > startSecondOfDay + DST_MARGIN_S) continue;
      if (time.secondOfDay < stopBelow) break;
      const instant = instantForWallTime({ ...day, ...time }, timeZone);
      if (instant && instant.getTime() <= at.getTime() && (!best || instant.getTime() > best.getTime())) best = instant;
      if (best && stopBelow === -Infinity) stopBelow = time.secondOfDay - DST_MARGIN_S;
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
