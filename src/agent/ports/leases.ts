import type { RunRecord, RunStatus } from './runs.ts';

/** Run leases: one replica drives a run, and writes its status board, at a time. */
export interface LeasesPort {
  /** Takes the lease when nobody holds it, its holder stopped renewing it, or it is already `owner`'s; false otherwise. */
  claimRunLease(input: { runId: string; owner: string; leaseMs: number }): Promise<boolean>;
  /**
   * Takes up to `limit` runs in `statuses` whose lease is already `owner`'s, ran out, or was released, or
   * that were never leased and have not changed for `graceMs` (a run just created is left to its creator);
   * concurrent callers get different runs.
   * `skipLocked`: rows locked by another transaction are passed over instead of waited for.
   * `ownLeases: false`: a run whose lease is `owner`'s and has not run out is left alone (a live replica's
   * periodic scan: the run is its own, just created or about to be claimed, and is not orphaned).
   */
  adoptRuns(input: {
    owner: string;
    leaseMs: number;
    statuses: readonly RunStatus[];
    limit: number;
    graceMs: number;
    skipLocked: boolean;
    ownLeases?: boolean;
  }): Promise<RunRecord[]>;
  /** A heartbeat: extends `owner`'s leases on these runs and on their running steps; returns the runs `owner` still holds. */
  renewLeases(input: { owner: string; leaseMs: number; runIds: readonly string[] }): Promise<string[]>;
  /** Lets peers take (and adopt) the run at once (a no-op unless `owner` holds it). */
  releaseRunLease(input: { runId: string; owner: string }): Promise<void>;
}
