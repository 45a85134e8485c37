import type { RunStore } from '../agent/ports/run-store.ts';

/**
 * Remembers which Slack events were handled, so a retried delivery (Slack retries after 3 s) does not
 * start a second run. The store implements it durably; several processes share it.
 */
export interface SlackEventLog {
  /** True the first time an event id is seen, false on every later call. */
  markSeen(eventId: string): Promise<boolean>;
}

/** The reads the Slack surface needs for `/tandem status|runs` and the App Home; the store satisfies it. */
export type RunQueries = Pick<RunStore, 'getRun' | 'listRuns' | 'getPlanVersion'>;

/** An in-memory event log for tests and single-process use; entries expire so memory stays bounded. */
export function createMemoryEventLog(ttlMs = 60 * 60 * 1000): SlackEventLog {
  const seen = new Map<string, number>();
  return {
    async markSeen(eventId) {
      const now = Date.now();
      for (const [id, at] of seen) {
        if (now - at < ttlMs) break;
        seen.delete(id);
      }
      if (seen.has(eventId)) return false;
      seen.set(eventId, now);
      return true;
    },
  };
}
