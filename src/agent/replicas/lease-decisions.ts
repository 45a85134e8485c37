/**
 * The decisions behind this replica's run leases, as plain functions of what is held and what the store
 * answered: which runs a renewal shows were taken by a peer, which adopted runs are new here, what a
 * release does to the holds, and how long `take` keeps trying. run-leases.ts does the timers and store calls.
 */

/** Holds per run, as run-leases keeps them: a run is present while at least one hold is open. */
export type HoldCounts = ReadonlyMap<string, number>;

export interface LeaseTiming {
  leaseMs: number;
  heartbeatMs: number;
  refreshMs: number;
}

/**
 * The runs asked to be renewed that the store did not renew and that are still held here: a peer took
 * them over (this replica looked dead), so they must stop here. A run released while the renewal was
 * on its way is not lost, only let go.
 */
export function runsLostToPeers(asked: readonly string[], renewed: readonly string[], held: HoldCounts): string[] {
  const still = new Set(renewed);
  return asked.filter((runId) => !still.has(runId) && held.has(runId));
}

/**
 * What to do with the runs an adoption scan returned. Runs held here already come back too (the scan
 * just renewed them); so does a run whose claim here is still on its way (a run this replica just
 * created): that claim holds it. A run whose release here is on its way is not adopted: the scan and
 * the release may reach the store in either order, so it is let go of again once the release is done.
 * The rest are `adopted`: new to this replica.
 */
export function newlyAdopted<R extends { id: string }>(
  returned: readonly R[],
  held: HoldCounts,
  claiming: HoldCounts,
  releasing: ReadonlySet<string>,
): { adopted: R[]; letGo: R[] } {
  const fresh = returned.filter((run) => !held.has(run.id) && !claiming.has(run.id));
  return { adopted: fresh.filter((run) => !releasing.has(run.id)), letGo: fresh.filter((run) => releasing.has(run.id)) };
}

/**
 * What releasing one hold does: nothing when the run is no longer held (lost to a peer meanwhile), one
 * hold fewer while others remain, and the store's lease is released with the last.
 */
export function releaseEffect(holds: number | undefined): 'not-held' | 'one-hold-fewer' | 'release-lease' {
  if (holds === undefined) return 'not-held';
  return holds > 1 ? 'one-hold-fewer' : 'release-lease';
}

/** How long `take` waits for a holder to let go: it sees the change within a beat; a dead holder's lease runs out. */
export function takeDeadline(startedAt: number, timing: LeaseTiming): number {
  return startedAt + timing.leaseMs + timing.heartbeatMs;
}

/** How often `take` tries again: a fraction of the holder's refresh interval, within 10 ms and 200 ms. */
export function takePollMs(timing: LeaseTiming): number {
  return Math.max(10, Math.min(200, timing.refreshMs / 4));
}

/** An adoption scan's grace before a just-expired lease is taken: at most 5 s, never more than a lease. */
export function adoptionGraceMs(timing: LeaseTiming): number {
  return Math.min(5_000, timing.leaseMs);
}
