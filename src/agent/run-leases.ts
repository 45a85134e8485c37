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
  /**
   * True when this replica holds the run's lease now (it was free, expired, or ours already). Holds
   * are counted per run (a driver and a planner may both hold one); each true claim needs one release.
   */
  claim(runId: string): Promise<boolean>;
  /** Waits until this replica holds the lease (its holder lets go once it sees the run moved on); release it after. */
  take(runId: string): Promise<void>;
  release(runId: string): Promise<void>;
  /** Runs `work` holding the lease when it can be had (peers then leave the run alone, and adopt it if this replica dies). */
  during<T>(runId: string, work: () => Promise<T>): Promise<T>;
  /**
   * Takes the leases of runs in these statuses that nobody holds (their replica died or let go); each
   * comes with one hold to release. `waitForLocks` at start-up, so a row busy for a moment is not missed.
   */
  adopt(statuses: readonly RunStatus[], options?: { waitForLocks?: boolean }): Promise<RunRecord[]>;
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
  /** Holds per run; the lease is released in the store when the last one ends. */
  const held = new Map<string, number>();
  /** Store calls for one run go in order, so a release never overtakes the claim that follows it. */
  const queues = new Map<string, Promise<unknown>>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let beating = false;
  let stopped = false;

  const serial = <T>(runId: string, step: () => Promise<T>): Promise<T> => {
    const next = (queues.get(runId) ?? Promise.resolve()).then(step, step);
    const tail = next.catch(() => undefined);
    queues.set(runId, tail);
    void tail.then(() => queues.get(runId) === tail && queues.delete(runId));
    return next;
  };

  const beat = async () => {
    if (beating) return; // a slow beat is not doubled up
    beating = true;
    try {
      const ids = [...held.keys()];
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
    held.set(runId, (held.get(runId) ?? 0) + 1);
    if (!timer && !stopped) {
      timer = setInterval(() => void beat(), settings.heartbeatMs);
      timer.unref?.(); // a heartbeat alone must not keep a process alive
    }
  };

  /** Runs with a claim on its way here: that claim will hold them (a lease a scan gives us meanwhile is ours). */
  const claiming = new Map<string, number>();
  const claim = (runId: string) => {
    claiming.set(runId, (claiming.get(runId) ?? 0) + 1);
    return claimNow(runId).finally(() => {
      const left = (claiming.get(runId) ?? 1) - 1;
      if (left > 0) claiming.set(runId, left);
      else claiming.delete(runId);
    });
  };
  const claimNow = (runId: string) =>
    serial(runId, async () => {
      if (held.has(runId)) {
        hold(runId); // ours already; the heartbeat keeps it
        return true;
      }
      if (!(await store.claimRunLease({ runId, owner, leaseMs: settings.leaseMs }))) return false;
      hold(runId);
      return true;
    });
  const release = (runId: string) =>
    serial(runId, async () => {
      const count = held.get(runId);
      if (count === undefined) return; // lost to a peer meanwhile: nothing of ours to release
      if (count > 1) return void held.set(runId, count - 1);
      held.delete(runId);
      await store.releaseRunLease({ runId, owner });
    });

  if (options.soleOwner) {
    // One process on the store: nobody to coordinate with.
    return {
      settings,
      claim: async () => true,
      take: async () => undefined,
      release: async () => undefined,
      during: (_runId, work) => work(),
      adopt: async () => [],
      stop: async () => undefined,
    };
  }

  return {
    settings,
    claim,
    release,
    async take(runId) {
      // The holder sees the change within its refresh interval; a dead holder's lease runs out.
      const deadline = Date.now() + settings.leaseMs + settings.heartbeatMs;
      while (!(await claim(runId))) {
        if (Date.now() > deadline) {
          logger.warn({ runId, owner }, 'run lease still held by another replica; going ahead');
          hold(runId); // so the release that follows balances
          return;
        }
        await sleep(Math.max(10, Math.min(200, settings.refreshMs / 4)));
      }
    },
    async during(runId, work) {
      const holding = await claim(runId).catch(() => false);
      try {
        return await work();
      } finally {
        if (holding) await release(runId).catch((error: unknown) => logger.warn({ runId, err: error }, 'could not release run lease'));
      }
    },
    async adopt(statuses, adoptOptions = {}) {
      if (stopped) return [];
      const runs = await store.adoptRuns({
        owner,
        leaseMs: settings.leaseMs,
        statuses,
        limit: 50,
        graceMs: Math.min(5_000, settings.leaseMs),
        skipLocked: !adoptOptions.waitForLocks,
      });
      // Runs this replica holds already come back too (the claim just renewed them): they are not new. Nor is
      // a run whose claim here is still on its way (a run this replica just created): that claim holds it.
      const adopted = runs.filter((run) => !held.has(run.id) && !claiming.has(run.id));
      for (const run of adopted) hold(run.id);
      return adopted;
    },
    async stop({ releaseAll }) {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      if (!releaseAll) return;
      for (const runId of [...held.keys()]) await store.releaseRunLease({ runId, owner }).catch(() => undefined);
      held.clear();
    },
  };
}
