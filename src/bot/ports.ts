import type { RunStore } from '../agent/ports/run-store.ts';

/**
 * Every Slack request is stored here before it is acknowledged and marked handled after, so a
 * process that dies in between leaves it for the next start (or a peer) to handle. The store
 * implements it durably; several processes share it.
 */
export interface SlackInbox {
  /** How long a replica may hold a request it is handling before a peer takes it over. */
  readonly leaseMs: number;
  /** Stores a request; false when one with this key was stored before (Slack delivered it again). */
  record(entry: { key: string; body: Record<string, unknown> }): Promise<boolean>;
  /** Keeps a request being handled here from being taken over. */
  extend(key: string): Promise<void>;
  done(key: string): Promise<void>;
  /** Requests acknowledged but never handled (their process stopped), now held by this one. */
  claimUnfinished(): Promise<{ key: string; body: Record<string, unknown> }[]>;
  /**
   * Store failures seen so far, and whether the store takes writes now. A request whose handling saw the
   * count grow may not have stored its work (listeners answer their own errors, so its outcome does not
   * say): it is not marked handled but handled again once the store takes writes.
   */
  storeFailures(): { seen: number; writable: boolean };
  /** Takes back requests this process kept pending (above), counting no attempt; the keys still pending and now held here. */
  reclaim(keys: readonly string[]): Promise<string[]>;
}

/** Thumbs up/down on run summaries; the store implements it (one per person and run) and counts it in /metrics. */
export interface FeedbackLog {
  /** False when this person already judged this run (from any summary message). */
  record(input: { runId: string; userId: string; value: 'good' | 'bad'; planVersion: number; authorKind: string; authorId: string }): Promise<boolean>;
}

/** The reads the Slack surface needs for `/tandem status|runs`, the App Home and which question a mention answered; the store satisfies it. */
export type RunQueries = Pick<RunStore, 'getRun' | 'listRuns' | 'getPlanVersion' | 'listQuestions'>;

/** An in-memory inbox for tests and tools without a store: nothing survives the process. Keys expire so memory stays bounded. */
export function createMemoryInbox(ttlMs = 60 * 60 * 1000): SlackInbox {
  const seen = new Map<string, number>();
  return {
    leaseMs: 60_000,
    async record({ key }) {
      const now = Date.now();
      for (const [id, at] of seen) {
        if (now - at < ttlMs) break;
        seen.delete(id);
      }
      if (seen.has(key)) return false;
      seen.set(key, now);
      return true;
    },
    extend: async () => undefined,
    done: async () => undefined,
    claimUnfinished: async () => [],
    storeFailures: () => ({ seen: 0, writable: true }),
    reclaim: async (keys) => [...keys],
  };
}
