export { parseSchedule, looksLikeSchedule, SCHEDULE_FORMS, type ParsedSchedule } from './parse-schedule.ts';
export { nextFireTimes, previousFireTime, formatFireTime } from './next-fire-times.ts';
export { createScheduler, type Scheduler, type SchedulerOptions } from './scheduler.ts';
export { createScheduleService, type ScheduleService, type ScheduleView } from './schedule-service.ts';
export { isTimeZone } from './zoned-time.ts';
