/**
 * This replica's run leases. Exactly one replica drives a run and writes its status board at a time:
 * a driver takes the run's lease before it starts anything, a heartbeat renews the leases of the runs
 * held here (and of their running steps) while they last, and a run whose lease another replica took
 * over (this one looked dead) is halted here. With `soleOwner` (embedded store, one process) leases
 * cost nothing: every claim succeeds without touching the store.
 */
import type { AgentLogger } from './context.ts';
import type { RunRecord, RunStatus, RunStore } from './ports/run-store.ts';
import { sleep } from './tool-call.ts';

export interface ReplicaSettings {
  /** How long a lease lasts without renewal: a dead replica's runs are adopted after at most this. */
  leaseMs: number;
  /** How often leases are renewed (well under leaseMs). */
  heartbeatMs: number;
  /** How often this replica looks for runs whose lease ran out. */
  adoptEveryMs: number;
  /** How often a driver re-reads its run, so a decision recorded by another replica is seen. */
  refreshMs: number;
}

export const DEFAULT_REPLICA_SETTINGS: ReplicaSettings = { leaseMs: 30_000, heartbeatMs: 10_000, adoptEveryMs: 5_000, refreshMs: 1_000 };

export interface RunLeases {
  readonly settings: ReplicaSettings;
  /** True when this replica holds the run's lease now (it was free, expired, or ours already). */
  claim(runId: string): Promise<boolean>;
  /** Waits until this replica holds the lease (its holder lets go once it sees the run moved on). */
  take(runId: string): Promise<void>;
  release(runId: string): Promise<void>;
  /** Takes the leases of runs in these statuses that nobody holds (their replica died or let go). */
  adopt(statuses: readonly RunStatus[]): Promise<RunRecord[]>;
  /** Stops the heartbeat; with `releaseAll`, lets peers adopt every run held here at once. */
  stop(options: { releaseAll: boolean }): Promise<void>;
}

export function createRunLeases(options: {
  store: RunStore;
  owner: string;
  soleOwner: boolean;
  settings: ReplicaSettings;
  logger: AgentLogger;
  /** A peer adopted this run: stop driving it here, without settling anything. */
  onLost(runId: string): void;
}): RunLeases {
  const { store, owner, settings, logger } = options;
  const held = new Set<string>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let beating = false;
  let stopped = false;

  const beat = async () => {
    if (beating) return; // a slow beat is not doubled up
    beating = true;
    try {
      const ids = [...held];
      const still = new Set(await store.renewLeases({ owner, leaseMs: settings.leaseMs, runIds: ids }));
      for (const runId of ids) {
        if (still.has(runId) || !held.has(runId)) continue;
        held.delete(runId);
        logger.warn({ runId, owner }, 'another replica took over this run; stopping here');
        options.onLost(runId);
      }
    } catch (error) {
      logger.warn({ err: error, owner }, 'lease heartbeat failed');
    } finally {
      beating = false;
      if (held.size === 0 && timer) {
        clearInterval(timer);
        timer = undefined;
      }
    }
  };
  const hold = (runId: string) => {
    held.add(runId);
    if (!timer && !stopped) {
      timer = setInterval(() => void beat(), settings.heartbeatMs);
      timer.unref?.(); // a heartbeat alone must not keep a process alive
    }
  };

  const claim = async (runId: string) => {
    if (options.soleOwner) return true;
    if (!(await store.claimRunLease({ runId, owner, leaseMs: settings.leaseMs }))) return false;
    hold(runId);
    return true;
  };

  return {
    settings,
    claim,
    async take(runId) {
      if (options.soleOwner) return;
      // The holder sees the change within its refresh interval; a dead holder's lease runs out.
      const deadline = Date.now() + settings.leaseMs + settings.heartbeatMs;
      while (!(await claim(runId))) {
        if (Date.now() > deadline) {
          logger.warn({ runId, owner }, 'run lease still held by another replica; going ahead');
          return;
        }
        await sleep(Math.max(10, Math.min(200, settings.refreshMs / 4)));
      }
    },
    async release(runId) {
      if (options.soleOwner) return;
      held.delete(runId);
      await store.releaseRunLease({ runId, owner });
    },
    async adopt(statuses) {
      if (stopped) return [];
      const runs = await store.adoptRuns({ owner, leaseMs: settings.leaseMs, statuses, limit: 50, graceMs: Math.min(1_000, settings.leaseMs) });
      // Runs this replica drives already come back too (the claim just renewed them): they are not new.
      const adopted = runs.filter((run) => !held.has(run.id));
      for (const run of runs) hold(run.id);
      return adopted;
    },
    async stop({ releaseAll }) {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      if (!releaseAll) return;
      for (const runId of [...held]) await store.releaseRunLease({ runId, owner }).catch(() => undefined);
      held.clear();
    },
  };
}
