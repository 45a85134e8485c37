import type { Result } from '../agent/model/errors.ts';
import { parseCron } from './cron-expression.ts';

export interface ParsedSchedule {
  cron: string;
  /** What to do at each fire, the text after the schedule phrase. */
  task: string;
  /** The schedule phrase as the person wrote it. */
  phrase: string;
}

export const SCHEDULE_FORMS = [
  'every weekday at 09:00 <task>',
  'every day at 9am <task>',
  'every monday at 14:30 <task>',
  'every hour <task>',
  'every 15 minutes <task>',
  'every month on the 1st at 08:00 <task>',
  'at 17:00 on fridays <task>',
  'cron: 0 9 * * 1-5 <task>',
];

const DAYS: Record<string, number> = { sun: 0, mon: 1, tue: 2, tues: 2, wed: 3, thu: 4, thur: 4, thurs: 4, fri: 5, sat: 6 };
const DAY_WORD = '(?:sun|mon|tues?|wed|thu(?:rs?)?|fri|sat)(?:day|nesday|urday|sday)?s?|weekdays?|weekends?';
const DAY_LIST = `(?:${DAY_WORD})(?:\\s*(?:,|and|&|\\+)\\s*(?:${DAY_WORD}))*`;
const END = '(?=$|[\\s,.:;!–—-])';

const CLAUSES = {
  interval: new RegExp(`^(?:every|each)\\s+(\\d+)\\s+(minutes?|mins?|hours?|hrs?)${END}`, 'i'),
  every: new RegExp(`^(?:every|each)\\s+(minute|hour|day|week|month|${DAY_LIST})${END}`, 'i'),
  adverb: new RegExp(`^(daily|hourly|weekly|monthly)${END}`, 'i'),
  at: new RegExp(`^at\\s+(noon|midnight|(\\d{1,2})(?::(\\d{2}))?\\s*(am|pm)?)${END}`, 'i'),
  onDays: new RegExp(`^on\\s+(?:the\\s+)?(${DAY_LIST})${END}`, 'i'),
  onDate: new RegExp(`^on\\s+(?:the\\s+|day\\s+)?(\\d{1,2})(?:st|nd|rd|th)?(?:\\s+of\\s+(?:every|each|the)\\s+month)?${END}`, 'i'),
};

interface Clauses {
  unit?: 'minute' | 'hour' | 'day' | 'week' | 'month';
  step?: number;
  days?: number[];
  time?: { hour: number; minute: number };
  dayOfMonth?: number;
}

function unhelpful(detail: string): { ok: false; error: string } {
  return { ok: false, error: `${detail}. Schedules I understand: ${SCHEDULE_FORMS.map((form) => `"${form}"`).join(', ')}.` };
}

/**
 * True when a message opens with a schedule phrase (so a failed parse deserves the list of forms), and
 * false for tasks that merely start with "every" ("every PR in acme/api needs a label").
 */
export function looksLikeSchedule(input: string): boolean {
  const text = input.trim();
  if (/^cron:?\s/i.test(text)) return true;
  const scanned = scanClauses(text);
  return !('clauses' in scanned) || scanned.clauses.unit !== undefined || scanned.clauses.days !== undefined;
}

/** Reads schedule clauses off the front of the text: what they say and the text left after them. */
function scanClauses(text: string): { clauses: Clauses; rest: string } | { ok: false; error: string } {
  const clauses: Clauses = {};
  let rest = text;
  for (;;) {
    const consumed = consumeClause(rest, clauses);
    if (consumed === undefined) return { clauses, rest };
    if (typeof consumed === 'object') return consumed;
    rest = rest.slice(consumed).trimStart();
  }
}

export function parseSchedule(input: string): Result<ParsedSchedule> {
  const text = input.trim();
  const raw = /^cron:?\s+((?:\S+\s+){4}\S+)(?:\s+(.*))?$/is.exec(text);
  if (raw) return rawCron(raw[1]!, raw[2] ?? '');
  const scanned = scanClauses(text);
  if (!('clauses' in scanned)) return scanned;
  const { clauses, rest } = scanned;
  const phrase = text.slice(0, text.length - rest.length).trim();
  if (!clauses.unit && !clauses.days)
    return unhelpful(phrase ? `"${phrase}" does not say how often` : `I could not find a schedule at the start of "${text.slice(0, 60)}"`);
  const task = rest.replace(/^[\s,.:;–—-]+/, '').trim();
  if (!task) return unhelpful(`"${phrase}" has no task after it`);
  const cron = toCron(clauses);
  if (!cron.ok) return unhelpful(cron.error);
  return { ok: true, value: { cron: cron.value, task, phrase } };
}

function rawCron(expression: string, rest: string): Result<ParsedSchedule> {
  // A sixth field of digits and cron punctuation is a seconds-first expression, not the task's first word.
  const sixth = /^([\d*,/-]+)(?:\s+(.*))?$/s.exec(rest.trim());
  const candidates = sixth
    ? [
        { cron: `${expression} ${sixth[1]}`, task: sixth[2] ?? '' },
        { cron: expression, task: rest },
      ]
    : [{ cron: expression, task: rest }];
  for (const candidate of candidates) {
    const parsed = parseCron(candidate.cron);
    if (!parsed.ok) continue;
    const task = candidate.task.replace(/^[\s,.:;–—-]+/, '').trim();
    if (!task) return unhelpful(`"cron: ${candidate.cron}" has no task after it`);
    return { ok: true, value: { cron: parsed.value.source, task, phrase: `cron: ${parsed.value.source}` } };
  }
  const reason = parseCron(expression);
  return unhelpful(`"${expression}" is not a cron expression${reason.ok ? '' : ` (${reason.error})`}`);
}

/** Consumes one clause into `clauses`: its length, undefined when none starts here, or an error. */
function consumeClause(text: string, clauses: Clauses): number | { ok: false; error: string } | undefined {
  let match: RegExpExecArray | null;
  // Once the phrase says how often, a later "weekly" or "every …" belongs to the task ("on fridays weekly report").
  const hasFrequency = clauses.unit !== undefined || clauses.days !== undefined;
  if ((match = CLAUSES.interval.exec(text)) && !hasFrequency) {
    const count = Number(match[1]);
    const unit = match[2]!.toLowerCase().startsWith('m') ? 'minute' : 'hour';
    const limit = unit === 'minute' ? 59 : 23;
    if (count < 1 || count > limit) return unhelpful(`every ${count} ${unit}s cannot be written as one cron expression (1–${limit} ${unit}s)`);
    Object.assign(clauses, { unit, step: count });
    return match[0].length;
  }
  if ((match = CLAUSES.every.exec(text)) && !hasFrequency) {
    const word = match[1]!.toLowerCase();
    if (['minute', 'hour', 'day', 'week', 'month'].includes(word)) clauses.unit = word as Clauses['unit'];
    else Object.assign(clauses, { unit: 'day', days: dayList(word) });
    return match[0].length;
  }
  if ((match = CLAUSES.adverb.exec(text)) && !hasFrequency) {
    clauses.unit = ({ daily: 'day', hourly: 'hour', weekly: 'week', monthly: 'month' } as const)[match[1]!.toLowerCase() as 'daily'];
    return match[0].length;
  }
  if ((match = CLAUSES.at.exec(text)) && !clauses.time) {
    const time = clockTime(match);
    if (!time) return unhelpful(`"${match[1]}" is not a time of day`);
    clauses.time = time;
    return match[0].length;
  }
  if ((match = CLAUSES.onDays.exec(text)) && !clauses.days) {
    clauses.days = dayList(match[1]!.toLowerCase());
    return match[0].length;
  }
  if ((match = CLAUSES.onDate.exec(text)) && clauses.dayOfMonth === undefined) {
    const day = Number(match[1]);
    if (day < 1 || day > 31) return unhelpful(`the ${day}th is not a day of the month`);
    clauses.dayOfMonth = day;
    return match[0].length;
  }
  return undefined;
}

function clockTime(match: RegExpExecArray): { hour: number; minute: number } | undefined {
  const word = match[1]!.toLowerCase();
  if (word === 'noon') return { hour: 12, minute: 0 };
  if (word === 'midnight') return { hour: 0, minute: 0 };
  // A bare number ("at 5") is too easily part of the task; ask for 5:00 or 5pm.
  if (match[3] === undefined && match[4] === undefined) return undefined;
  let hour = Number(match[2]);
  const minute = Number(match[3] ?? 0);
  const meridiem = match[4]?.toLowerCase();
  if (meridiem && (hour < 1 || hour > 12)) return undefined;
  if (meridiem === 'pm' && hour < 12) hour += 12;
  if (meridiem === 'am' && hour === 12) hour = 0;
  if (hour > 23 || minute > 59) return undefined;
  return { hour, minute };
}

function dayList(text: string): number[] {
  const days = new Set<number>();
  for (const word of text.split(/\s*(?:,|and|&|\+)\s*/)) {
    if (word.startsWith('weekday')) [1, 2, 3, 4, 5].forEach((day) => days.add(day));
    else if (word.startsWith('weekend')) [0, 6].forEach((day) => days.add(day));
    else {
      const key = Object.keys(DAYS).find(
        (name) => word.startsWith(name) && (word.length === name.length || /^(?:day|nesday|urday|sday|s)/.test(word.slice(name.length))),
      );
      if (key !== undefined) days.add(DAYS[key]!);
    }
  }
  return [...days].sort((a, b) => a - b);
}

function toCron(clauses: Clauses): Result<string> {
  const days = clauses.days && clauses.days.length < 7 ? compactList(clauses.days) : '*';
  const time = clauses.time ?? { hour: 9, minute: 0 };
  switch (clauses.unit) {
    case 'minute':
      if (clauses.time) return { ok: false, error: 'a schedule every few minutes cannot also have a time of day' };
      return { ok: true, value: `${clauses.step && clauses.step > 1 ? `*/${clauses.step}` : '*'} * * * ${days}` };
    case 'hour':
      if (clauses.time) return { ok: false, error: 'a schedule every few hours cannot also have a time of day' };
      return { ok: true, value: `0 ${clauses.step && clauses.step > 1 ? `*/${clauses.step}` : '*'} * * ${days}` };
    case 'month':
      return { ok: true, value: `${time.minute} ${time.hour} ${clauses.dayOfMonth ?? 1} * ${days}` };
    case 'week':
      return { ok: true, value: `${time.minute} ${time.hour} * * ${clauses.days ? days : '1'}` };
    default:
      return { ok: true, value: `${time.minute} ${time.hour} ${clauses.dayOfMonth ?? '*'} * ${days}` };
  }
}

/** [1,2,3,4,5] → "1-5", [0,6] → "0,6": the form people recognise when the cron is echoed back. */
function compactList(values: number[]): string {
  const parts: string[] = [];
  for (let index = 0; index < values.length;) {
    let end = index;
    while (end + 1 < values.length && values[end + 1] === values[end]! + 1) end++;
    parts.push(end - index >= 2 ? `${values[index]}-${values[end]}` : values.slice(index, end + 1).join(','));
    index = end + 1;
  }
  return parts.join(',');
}
