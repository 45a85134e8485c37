import type { Result } from '../agent/model/errors.ts';
import { redactText } from '../agent/text/redact.ts';
import { formatFireTime, nextFireTimes } from './next-fire-times.ts';
import { parseSchedule } from './parse-schedule.ts';
import type { ScheduleRecord, SchedulesPort } from './schedules-port.ts';
import { isTimeZone } from './zoned-time.ts';

/** A schedule as a person sees it: the cron echoed back and the next fire times in its zone. */
export interface ScheduleView extends Pick<ScheduleRecord, 'id' | 'cron' | 'timeZone' | 'task' | 'channel' | 'createdBy'> {
  /** e.g. "Mon, Nov 23, 2026, 09:00 EST". */
  nextFires: string[];
}

export interface ScheduleService {
  /** "every weekday at 09:00 triage open PRs in acme/api", in the requester's IANA zone (Slack's users.info `tz`). */
  create(input: { text: string; channel: string; createdBy: string; timeZone: string }): Promise<Result<ScheduleView>>;
  list(filter: { channel?: string; createdBy?: string }): Promise<ScheduleView[]>;
  get(id: string): Promise<ScheduleView | undefined>;
  remove(id: string): Promise<boolean>;
}

export interface ScheduleServiceOptions {
  store: SchedulesPort;
  /** Called after a schedule is added or removed, e.g. the local scheduler's reload(). */
  onChange?: () => Promise<void>;
  clock?: () => Date;
  /** How many upcoming fire times to show; three by default. */
  upcoming?: number;
  /** Redacted from the text before it is parsed, so neither the stored task nor any echo of it holds them. */
  secrets?: readonly string[];
  /** TANDEM_MAX_SCHEDULES per channel and TANDEM_MIN_SCHEDULE_INTERVAL_S (issue 32); absent: unbounded. */
  bounds?: ScheduleBounds;
  /** Whether this person may create a schedule (the policy's `schedule` action); an error is the words they are told. */
  mayCreate?: (input: { createdBy: string; channel: string; intervalSeconds: number }) => Promise<Result<void>>;
}

export interface ScheduleBounds {
  maxPerChannel: number;
  minIntervalS: number;
}

/** The shortest gap between the next fires (a `* * * * *` schedule: 60 s), looked at over the next 50. */
export function shortestIntervalS(cron: string, timeZone: string, from: Date): number {
  const fires = nextFireTimes(cron, timeZone, from, 50);
  let shortest = Number.POSITIVE_INFINITY;
  for (let index = 1; index < fires.length; index++) shortest = Math.min(shortest, (fires[index]!.getTime() - fires[index - 1]!.getTime()) / 1000);
  return shortest;
}

const duration = (seconds: number) => (seconds % 60 === 0 ? `${seconds / 60} minute${seconds === 60 ? '' : 's'}` : `${seconds} seconds`);

export function createScheduleService(options: ScheduleServiceOptions): ScheduleService {
  const { store } = options;
  const now = options.clock ?? (() => new Date());
  const view = (schedule: ScheduleRecord): ScheduleView => ({
    id: schedule.id,
    cron: schedule.cron,
    timeZone: schedule.timeZone,
    task: schedule.task,
    channel: schedule.channel,
    createdBy: schedule.createdBy,
    nextFires: nextFireTimes(schedule.cron, schedule.timeZone, now(), options.upcoming ?? 3).map((at) => formatFireTime(at, schedule.timeZone)),
  });

  return {
    async create(input) {
      const timeZone = input.timeZone.trim() || 'UTC';
      if (!isTimeZone(timeZone)) return { ok: false, error: `"${timeZone}" is not a time zone I know (expected an IANA name such as Europe/Berlin)` };
      // A token pasted into a scheduled task would be stored, echoed and posted at every fire: it goes first.
      const parsed = parseSchedule(redactText(input.text, options.secrets ?? []));
      if (!parsed.ok) return parsed;
      if (nextFireTimes(parsed.value.cron, timeZone, now(), 1).length === 0) return { ok: false, error: `\`${parsed.value.cron}\` never fires` };
      const intervalSeconds = shortestIntervalS(parsed.value.cron, timeZone, now());
      const { bounds } = options;
      if (bounds && intervalSeconds < bounds.minIntervalS)
        return {
          ok: false,
          error: `\`${parsed.value.cron}\` fires every ${duration(intervalSeconds)}; a schedule may fire at most once every ${duration(bounds.minIntervalS)} (TANDEM_MIN_SCHEDULE_INTERVAL_S)`,
        };
      if (bounds && (await store.list({ channel: input.channel })).length >= bounds.maxPerChannel)
        return {
          ok: false,
          error: `this channel already has ${bounds.maxPerChannel} schedules, the most it may have (TANDEM_MAX_SCHEDULES); remove one first`,
        };
      const allowed = await options.mayCreate?.({
        createdBy: input.createdBy,
        channel: input.channel,
        intervalSeconds: Number.isFinite(intervalSeconds) ? intervalSeconds : 0,
      });
      if (allowed && !allowed.ok) return allowed;
      const schedule = await store.insert({
        cron: parsed.value.cron,
        timeZone,
        task: parsed.value.task,
        channel: input.channel,
        createdBy: input.createdBy,
      });
      await options.onChange?.();
      return { ok: true, value: view(schedule) };
    },
    async list(filter) {
      return (await store.list(filter)).map(view);
    },
    async get(id) {
      const schedule = await store.get(id);
      return schedule ? view(schedule) : undefined;
    },
    async remove(id) {
      const removed = await store.remove(id);
      if (removed) await options.onChange?.();
      return removed;
    },
  };
}
