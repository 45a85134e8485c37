import { pino, type DestinationStream, type Logger } from 'pino';
import { redactText } from '../agent/redact.ts';

export type { Logger } from 'pino';

/**
 * A pino logger that strips configured secrets and token-shaped strings from every line, whatever
 * field they hide in (pino's path-based `redact` cannot know where a token will turn up).
 */
export function createLogger(options: { level: string; secrets: readonly string[]; destination?: DestinationStream }): Logger {
  const inner = options.destination ?? pino.destination({ dest: 1, sync: false });
  const destination: DestinationStream = {
    write(line: string) {
      inner.write(redactText(line, options.secrets));
    },
  };
  return pino(
    {
      level: options.level,
      base: undefined,
      redact: { paths: ['token', 'apiKey', '*.token', '*.apiKey', 'authorization', '*.authorization', 'headers.authorization'], censor: '[redacted]' },
    },
    destination,
  );
}
