/** A message a run owes its thread; `id` names it (the same message recorded twice is one). */
export interface NewOwedMessage {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
}

/** A message owed along with a record the store creates; its id is derived from the record's. */
export interface OweAlong {
  payload: Record<string, unknown>;
  owner: string;
  leaseMs: number;
}

export interface OwedMessage extends NewOwedMessage {
  runId: string;
  /** Deliveries begun, this one included: above 1, an earlier one may have reached the thread. */
  attempts: number;
  createdAt: Date;
}

/** What runs owe their threads, delivered at least once by whichever replica holds it; reminders sent exactly once. */
export interface OutboxPort {
  /** Records messages a run owes its thread, held by `owner` for `leaseMs` so it delivers them first. */
  owe(input: { runId: string; owe: readonly NewOwedMessage[]; owner: string; leaseMs: number }): Promise<void>;
  /**
   * Takes pending owed messages for `owner` (each delivery begun counts an attempt): of `runId` when
   * given (ones `owner` holds or nobody does), else any whose holder's lease ran out; `all` takes every pending one.
   */
  claimOwed(input: { owner: string; leaseMs: number; all: boolean; runId?: string; limit: number }): Promise<OwedMessage[]>;
  markOwedSent(id: string): Promise<void>;
  /** A delivery failed: pending again after `retryInMs`, for whichever replica comes first. */
  deferOwed(input: { id: string; retryInMs: number }): Promise<void>;

  /**
   * True exactly once per (run, kind, key) across every replica sharing the store: housekeeping
   * sends a reminder or re-ping only when it gets true.
   */
  claimReminder(input: { runId: string; kind: string; key: string }): Promise<boolean>;
}
