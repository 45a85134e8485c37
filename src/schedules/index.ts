export { looksLikeSchedule } from './parse-schedule.ts';

export { createScheduler, type Scheduler } from './scheduler.ts';
export { createScheduleService, type ScheduleService, type ScheduleView } from './schedule-service.ts';
export { isTimeZone } from './zoned-time.ts';
