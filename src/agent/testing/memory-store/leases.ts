/** LeasesPort in memory: the conditional updates of leases-repository.ts. */
import type { LeasesPort } from '../../ports/leases.ts';
import { copy, expired, leaseEnd, type MemoryTables, type RunRow, type Write } from './tables.ts';

/** Nobody holds it, its holder stopped renewing, or it is already ours. */
const claimable = (row: RunRow, owner: string, write: Write) =>
  row.leaseOwner === null || row.leaseUntil === null || expired(row.leaseUntil, write) || row.leaseOwner === owner;

export function memoryLeases(tables: MemoryTables): LeasesPort {
  return {
    async claimRunLease(input) {
      const write = tables.begin();
      const row = tables.runs.get(input.runId);
      if (!row || !claimable(row, input.owner, write)) return false;
      Object.assign(row, { leaseOwner: input.owner, leaseUntil: leaseEnd(write, input.leaseMs) });
      return true;
    },
    async adoptRuns(input) {
      const write = tables.begin();
      if (input.statuses.length === 0 || input.limit <= 0) return [];
      // A lease that ran out or was released is free at once; a run never leased waits out the grace period
      // (`<=`: times here are whole milliseconds, where PostgreSQL's microseconds put an earlier write strictly before).
      const settled = (row: RunRow) =>
        (input.ownLeases !== false && row.leaseOwner === input.owner) ||
        expired(row.leaseUntil, write) ||
        (row.leaseUntil === null && row.run.updatedAt.getTime() <= write.now.getTime() - Math.max(0, Math.round(input.graceMs)));
      const adopted = [...tables.runs.values()]
        .filter((row) => input.statuses.includes(row.run.status) && claimable(row, input.owner, write) && settled(row))
        .sort((a, b) => a.run.updatedAt.getTime() - b.run.updatedAt.getTime() || a.tick - b.tick)
        .slice(0, input.limit);
      for (const row of adopted) Object.assign(row, { leaseOwner: input.owner, leaseUntil: leaseEnd(write, input.leaseMs) });
      return adopted.map((row) => copy(row.run));
    },
    async renewLeases(input) {
      const write = tables.begin();
      tables.replicas.set(input.owner, write.now);
      const held = input.runIds.filter((runId) => tables.runs.get(runId)?.leaseOwner === input.owner);
      for (const runId of held) tables.runs.get(runId)!.leaseUntil = leaseEnd(write, input.leaseMs);
      for (const step of tables.steps.values()) {
        if (held.includes(step.runId) && step.leaseOwner === input.owner && step.status === 'running') step.leaseUntil = leaseEnd(write, input.leaseMs);
      }
      return [...new Set(held)];
    },
    async releaseRunLease(input) {
      const write = tables.begin();
      const row = tables.runs.get(input.runId);
      if (row?.leaseOwner === input.owner) row.leaseUntil = write.now;
    },
  };
}
