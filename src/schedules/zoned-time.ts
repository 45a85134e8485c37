/** Wall-clock arithmetic in an IANA time zone with nothing but Intl (no Temporal on Node 20). */

export interface WallTime {
  year: number;
  month: number; // 1..12
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

export function isTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

export function wallTimeAt(instant: Date, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour! % 24, minute: parts.minute!, second: parts.second! };
}

/** The wall time read as if it were UTC, in ms: handy for comparing and stepping local dates. */
export function wallTimeAsUtc(wall: WallTime): number {
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
}

function offsetAt(epochMs: number, timeZone: string): number {
  return wallTimeAsUtc(wallTimeAt(new Date(epochMs), timeZone)) - Math.floor(epochMs / 1000) * 1000;
}

/**
 * The instant that shows this wall time in the zone: none in a spring-forward gap, and in a fall-back overlap
 * the first of the two, as node-cron fires (a slot computed here must name the instant node-cron fired).
 * Offsets are sampled 12 hours either side, since a zone changes offset at most once a day.
 */
export function instantForWallTime(wall: WallTime, timeZone: string): Date | undefined {
  const asUtc = wallTimeAsUtc(wall);
  const offsets = new Set([offsetAt(asUtc - 12 * 3_600_000, timeZone), offsetAt(asUtc + 12 * 3_600_000, timeZone)]);
  const instants: number[] = [];
  for (const offset of offsets) {
    const candidate = asUtc - offset;
    if (wallTimeAsUtc(wallTimeAt(new Date(candidate), timeZone)) === asUtc) instants.push(candidate);
  }
  return instants.length ? new Date(Math.min(...instants)) : undefined;
}

/**
 * The zone's offset over the whole of this local date, or undefined when it changes on or near it (a
 * daylight-saving day). Sampled from 14 hours before its midnight to 38 hours after, which covers the date's
 * instants in every zone (offsets run from -12 to +14 hours).
 */
export function steadyOffsetOn(date: { year: number; month: number; day: number }, timeZone: string): number | undefined {
  const midnight = Date.UTC(date.year, date.month - 1, date.day);
  const before = offsetAt(midnight - 14 * 3_600_000, timeZone);
  return offsetAt(midnight + 38 * 3_600_000, timeZone) === before ? before : undefined;
}
