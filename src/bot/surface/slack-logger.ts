import { LogLevel, type AppOptions } from '@slack/bolt';
import type { Logger } from '../../observability/logger.ts';

export type SlackLogger = NonNullable<AppOptions['logger']>;

/** Bolt and the Web API client log through our pino logger, so secrets are stripped the same way. */
export function slackLogger(logger: Logger, name = 'slack'): SlackLogger {
  const child = logger.child({ component: name });
  const join = (parts: unknown[]) =>
    parts.map((part) => (part instanceof Error ? part.message : typeof part === 'string' ? part : JSON.stringify(part))).join(' ');
  // Bolt logs a debug line or more per request; build the text only when the level is on.
  const at =
    (level: 'debug' | 'warn' | 'error') =>
    (...parts: unknown[]) => {
      if (child.isLevelEnabled(level)) child[level](join(parts));
    };
  return {
    debug: at('debug'),
    info: at('debug'), // Bolt's info lines are chatter for us
    warn: at('warn'),
    error: at('error'),
    setLevel: () => undefined,
    getLevel: () => LogLevel.INFO,
    setName: () => undefined,
  };
}
