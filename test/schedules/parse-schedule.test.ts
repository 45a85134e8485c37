import { describe, expect, it } from 'vitest';
import { looksLikeSchedule, parseSchedule } from '../../src/schedules/parse-schedule.ts';

describe('parseSchedule', () => {
  it.each([
    ['every weekday at 09:00 triage open PRs in acme/api', '0 9 * * 1-5', 'triage open PRs in acme/api'],
    ['every day at 9am check health of http://127.0.0.1:8080/healthz', '0 9 * * *', 'check health of http://127.0.0.1:8080/healthz'],
    ['every monday at 14:30 post the weekly digest', '30 14 * * 1', 'post the weekly digest'],
    ['every hour check health of http://127.0.0.1/', '0 * * * *', 'check health of http://127.0.0.1/'],
    ['every 15 minutes check health of http://127.0.0.1/', '*/15 * * * *', 'check health of http://127.0.0.1/'],
    ['every month on the 1st at 08:00 cut release v1 of acme/api', '0 8 1 * *', 'cut release v1 of acme/api'],
    ['at 17:00 on fridays weekly report for acme/api', '0 17 * * 5', 'weekly report for acme/api'],
    ['cron: 0 9 * * 1-5 triage open pull requests in acme/api', '0 9 * * 1-5', 'triage open pull requests in acme/api'],
    ['cron: */10 * * * * * ping http://127.0.0.1/', '*/10 * * * * *', 'ping http://127.0.0.1/'],
    ['every monday and wednesday at 2:30pm: sync labels', '30 14 * * 1,3', 'sync labels'],
    ['every weekend at noon, report', '0 12 * * 0,6', 'report'],
    ['daily at 6am summarise failing workflows', '0 6 * * *', 'summarise failing workflows'],
    ['every 2 hours on weekdays check the deploy', '0 */2 * * 1-5', 'check the deploy'],
    ['Every Tuesday at 12am rotate logs', '0 0 * * 2', 'rotate logs'],
  ])('"%s" → %s', (text, cron, task) => {
    expect(parseSchedule(text)).toEqual({ ok: true, value: expect.objectContaining({ cron, task }) });
  });

  it.each([
    ['tomorrow deploy main of acme/api to prod', 'could not find a schedule'],
    ['every 90 minutes check health', 'every 90 minutes'],
    ['every day at 25:00 check health', '"25:00" is not a time of day'],
    ['every weekday at 09:00', 'has no task'],
    ['at 17:00 deploy main', 'does not say how often'],
    ['cron: 0 9 * * funday triage', 'is not a cron expression'],
  ])('"%s" is refused with the forms that work', (text, reason) => {
    const result = parseSchedule(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toContain(reason);
    expect(result.error).toContain('every weekday at 09:00 <task>');
    expect(result.error).toContain('cron: 0 9 * * 1-5 <task>');
  });

  it('tells a schedule request from an ordinary task', () => {
    expect(looksLikeSchedule('every weekday at 09:00 triage')).toBe(true);
    expect(looksLikeSchedule('at 17:00 on fridays report')).toBe(true);
    expect(looksLikeSchedule('deploy main of acme/api to prod')).toBe(false);
    expect(looksLikeSchedule('everything is broken, check health of http://127.0.0.1/')).toBe(false);
    expect(looksLikeSchedule('every PR in acme/api needs a label')).toBe(false);
    // A schedule written wrongly still counts, so the person hears which forms work.
    expect(looksLikeSchedule('every 90 minutes check health')).toBe(true);
    expect(looksLikeSchedule('every weekday at 09:00')).toBe(true);
    expect(looksLikeSchedule('cron: 0 9 * * funday triage')).toBe(true);
  });
});
