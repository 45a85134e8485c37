import { z } from 'zod';
import type { Logger } from '../../observability/logger.ts';
import { isTimeZone } from '../../schedules/index.ts';
import { describeError } from './replies.ts';
import type { SlackClient } from './slack-client.ts';

const UserInfoSchema = z.object({ user: z.object({ tz: z.string().optional() }).optional() });

/** The person's IANA zone from their Slack profile (users.info `tz`); UTC when Slack does not say. */
export async function userTimeZone(client: SlackClient, logger: Logger, userId: string): Promise<{ timeZone: string; fellBack: boolean }> {
  try {
    const parsed = UserInfoSchema.safeParse(await client.users.info({ user: userId }));
    const tz = parsed.success ? parsed.data.user?.tz : undefined;
    if (tz && isTimeZone(tz)) return { timeZone: tz, fellBack: false };
  } catch (error) {
    logger.warn({ err: describeError(error), userId }, 'could not read the time zone of a user; using UTC');
  }
  return { timeZone: 'UTC', fellBack: true };
}
