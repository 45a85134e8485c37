import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';
import { redactText } from '../agent/text/redact.ts';
import { logTraceFields } from './log-trace.ts';

export type { Logger } from 'pino';

const MAX_DEPTH = 8;

/**
 * A pino logger that strips configured secrets and token-shaped strings from every value before it
 * is serialised, whatever field it hides in (pino's path-based `redact` cannot know where a token
 * will turn up, and after serialisation a secret holding `"` or `\` no longer looks like itself).
 * The finished line is checked once more for what a custom serialiser might have added.
 */
export function createLogger(options: { level: string; secrets: readonly string[]; destination?: DestinationStream }): Logger {
  const { secrets } = options;
  const inner = options.destination ?? pino.destination({ dest: 1, sync: false });
  const destination: DestinationStream = {
    write(line: string) {
      inner.write(redactText(line, secrets));
    },
  };
  return pino(
    {
      level: options.level,
      base: undefined,
      // The run's trace and span ids while tracing is on (log-trace.ts).
      mixin: logTraceFields,
      redact: { paths: ['token', 'apiKey', '*.token', '*.apiKey', 'authorization', '*.authorization', 'headers.authorization'], censor: '[redacted]' },
      // Errors were made plain (and redacted) by the log formatter already; a second pass would rename their type.
      serializers: { err: (value: unknown) => (value instanceof Error ? stdSerializers.err(value) : value) },
      formatters: {
        log: (object) => redactLogValue(object, secrets, 0) as Record<string, unknown>,
        bindings: (bindings) => redactLogValue(bindings, secrets, 0) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => (typeof arg === 'string' ? redactText(arg, secrets) : arg)) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}

/** Errors become pino's plain `{ type, message, stack }` first, so their message and stack are redacted too. */
function redactLogValue(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (value instanceof Error) return redactLogValue(stdSerializers.err(value), secrets, depth);
  if (!value || typeof value !== 'object' || value instanceof Date) return value;
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  const toJson = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJson === 'function') return redactLogValue(toJson.call(value), secrets, depth + 1);
  if (Array.isArray(value)) return value.map((item) => redactLogValue(item, secrets, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, redactLogValue(inner, secrets, depth + 1)]));
}
