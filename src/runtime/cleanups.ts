import type { Logger } from '../observability/logger.ts';

/** What start-up opened, closed in reverse order on shutdown or on a failed start; one failing close does not stop the rest. */
export interface Cleanups {
  add(cleanup: () => Promise<void>): void;
  runAll(): Promise<void>;
}

export function createCleanups(logger: Logger): Cleanups {
  const cleanups: (() => Promise<void>)[] = [];
  return {
    add: (cleanup) => void cleanups.push(cleanup),
    async runAll() {
      for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => logger.warn({ err: error }, 'shutdown step failed'));
    },
  };
}
