import { validate as nodeCronAccepts } from 'node-cron';
import type { Result } from '../agent/model/errors.ts';

/**
 * A cron expression as sets of allowed values. Five fields (minute hour day-of-month month day-of-week)
 * or six with seconds first, the same dialect node-cron fires, so the times we show are the times it fires.
 * Day-of-month and day-of-week must both match (node-cron's rule, not Vixie cron's "either").
 */
export interface CronExpression {
  source: string;
  seconds: number[];
  minutes: number[];
  hours: number[];
  daysOfMonth: Set<number>;
  months: Set<number>; // 1..12
  daysOfWeek: Set<number>; // 0..6, Sunday = 0
}

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: string[];
  namesStartAt?: number;
}

const SECOND: FieldSpec = { name: 'second', min: 0, max: 59 };
const MINUTE: FieldSpec = { name: 'minute', min: 0, max: 59 };
const HOUR: FieldSpec = { name: 'hour', min: 0, max: 23 };
const DAY_OF_MONTH: FieldSpec = { name: 'day of month', min: 1, max: 31 };
const MONTH: FieldSpec = { name: 'month', min: 1, max: 12, names: MONTH_NAMES, namesStartAt: 1 };
// 7 is accepted as Sunday, then folded to 0.
const DAY_OF_WEEK: FieldSpec = { name: 'day of week', min: 0, max: 7, names: DAY_NAMES, namesStartAt: 0 };

export function parseCron(source: string): Result<CronExpression> {
  const fields = source.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6)
    return { ok: false, error: `a cron expression has 5 fields (minute hour day month weekday), got ${fields.length}` };
  const withSeconds = fields.length === 6 ? fields : ['0', ...fields];
  const specs = [SECOND, MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK];
  const values: number[][] = [];
  for (const [index, spec] of specs.entries()) {
    const parsed = parseField(withSeconds[index]!, spec);
    if (!parsed.ok) return parsed;
    values.push(parsed.value);
  }
  if (!nodeCronAccepts(source.trim())) return { ok: false, error: `node-cron does not accept "${source.trim()}"` };
  const [seconds, minutes, hours, daysOfMonth, months, daysOfWeek] = values as [number[], number[], number[], number[], number[], number[]];
  return {
    ok: true,
    value: {
      source: source.trim(),
      seconds,
      minutes,
      hours,
      daysOfMonth: new Set(daysOfMonth),
      months: new Set(months),
      daysOfWeek: new Set(daysOfWeek.map((day) => day % 7)),
    },
  };
}

function parseField(text: string, spec: FieldSpec): Result<number[]> {
  const allowed = new Set<number>();
  for (const item of text.toLowerCase().split(',')) {
    const match = /^(\*|[a-z0-9]+(?:-[a-z0-9]+)?)(?:\/(\d+))?$/.exec(item);
    if (!match) return { ok: false, error: `the ${spec.name} field "${text}" is not a number, range, list or step` };
    const step = match[2] === undefined ? 1 : Number(match[2]);
    if (step < 1) return { ok: false, error: `the ${spec.name} field "${text}" has a zero step` };
    let low = spec.min;
    let high = spec.max;
    if (match[1] !== '*') {
      const [from, to] = match[1]!.split('-');
      const start = fieldValue(from!, spec);
      const end = to === undefined ? (match[2] === undefined ? start : spec.max) : fieldValue(to, spec);
      if (start === undefined || end === undefined || start > end)
        return { ok: false, error: `the ${spec.name} field "${text}" is outside ${spec.min}-${spec.max}` };
      low = start;
      high = end;
    }
    for (let value = low; value <= high; value += step) allowed.add(value);
  }
  return { ok: true, value: [...allowed].sort((a, b) => a - b) };
}

function fieldValue(token: string, spec: FieldSpec): number | undefined {
  const nameIndex = spec.names?.indexOf(token.slice(0, 3)) ?? -1;
  const value = /^\d+$/.test(token) ? Number(token) : nameIndex >= 0 && token.length >= 3 ? nameIndex + (spec.namesStartAt ?? 0) : undefined;
  if (value === undefined || value < spec.min || value > spec.max) return undefined;
  return value;
}
