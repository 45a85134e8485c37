import type { LogPort } from '../ports/logger.ts';

/** Work this process started and does not await (planning, driving, deliveries): a failure is logged, and idle() waits for all of it. */
export interface BackgroundWork {
  track(work: Promise<unknown>, what: string, runId?: string): void;
  /** Resolves when nothing is under way, including work started while waiting. */
  idle(): Promise<void>;
}

export function createBackgroundWork(logger: LogPort): BackgroundWork {
  const background = new Set<Promise<unknown>>();
  return {
    track(work, what, runId) {
      const guarded = work.catch((error: unknown) => logger.error({ runId, err: error }, `${what} failed`));
      background.add(guarded);
      void guarded.finally(() => background.delete(guarded));
    },
    async idle() {
      while (background.size) await Promise.allSettled([...background]);
    },
  };
}
