import { LogLevel, type AppOptions } from '@slack/bolt';
import type { Logger } from '../observability/logger.ts';

export type SlackLogger = NonNullable<AppOptions['logger']>;

/** Bolt and the Web API client log through our pino logger, so secrets are stripped the same way. */
export function slackLogger(logger: Logger, name = 'slack'): SlackLogger {
  const child = logger.child({ component: name });
  const join = (parts: unknown[]) => parts.map((part) => (part instanceof Error ? part.message : typeof part === 'string' ? part : JSON.stringify(part))).join(' ');
  return {
    debug: (...parts: unknown[]) => child.debug(join(parts)),
    info: (...parts: unknown[]) => child.debug(join(parts)), // Bolt's info lines are chatter for us
    warn: (...parts: unknown[]) => child.warn(join(parts)),
    error: (...parts: unknown[]) => child.error(join(parts)),
    setLevel: () => undefined,
    getLevel: () => LogLevel.INFO,
    setName: () => undefined,
  };
}
