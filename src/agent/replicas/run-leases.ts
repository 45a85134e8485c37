/**
 * This replica's run leases. Exactly one replica drives a run and writes its status board at a time:
 * a driver takes the run's lease before it starts anything, a heartbeat renews the leases of the runs
 * held here (and of their running steps) while they last, and a run whose lease another replica took
 * over (this one looked dead) is halted here. With `soleOwner` (embedded store, one process) leases
 * cost nothing: every claim succeeds without touching the store.
 */
import type { LogPort } from '../ports/logger.ts';
import type { LeasesPort } from '../ports/leases.ts';
import type { RunRecord, RunStatus } from '../ports/runs.ts';
import { sleep } from '../sleep.ts';
import { adoptionGraceMs, newlyAdopted, releaseEffect, runsLostToPeers, takeDeadline, takePollMs } from './lease-decisions.ts';

export interface ReplicaSettings {
  /** How long a lease lasts without renewal: a dead replica's runs are adopted after at most this. */
  leaseMs: number;
  /** How often leases are renewed (well under leaseMs). */
  heartbeatMs: number;
  /** How often this replica looks for runs whose lease ran out. */
  adoptEveryMs: number;
  /** How often a driver re-reads its run, so a decision recorded by another replica is seen. */
  refreshMs: number;
  /**
   * How long an owed message whose delivery failed waits before it is tried again, and how often this replica
   * looks for owed messages nobody is delivering (the sweep that tries them again).
   */
  owedRetryMs: number;
}

/** As many runs as `resumeRuns` lists alone on the store at start-up. */
const START_UP_ADOPTION_LIMIT = 1000;

export const DEFAULT_REPLICA_SETTINGS: ReplicaSettings = { leaseMs: 30_000, heartbeatMs: 10_000, adoptEveryMs: 5_000, refreshMs: 1_000, owedRetryMs: 5_000 };

export interface RunLeases {
  readonly settings: ReplicaSettings;
  /**
   * True when this replica holds the run's lease now (it was free, expired, or ours already). Holds
   * are counted per run (a driver and a planner may both hold one); each true claim needs one release.
   */
  claim(runId: string): Promise<boolean>;
  /**
   * What `createRun` should store with a new run so that it is leased to this replica from its first
   * write (undefined alone on the store, where leases are not kept); `holdCreated` then counts the hold.
   */
  readonly newRunLease: { owner: string; leaseMs: number } | undefined;
  /** The run was created with `newRunLease`: this replica holds it (one hold, released like a claim's). */
  holdCreated(runId: string): void;
  /** Waits until this replica holds the lease (its holder lets go once it sees the run moved on); release it after. */
  take(runId: string): Promise<void>;
  release(runId: string): Promise<void>;
  /** Runs `work` holding the lease when it can be had (peers then leave the run alone, and adopt it if this replica dies). */
  during<T>(runId: string, work: () => Promise<T>): Promise<T>;
  /**
   * Takes the leases of runs in these statuses that nobody holds (their replica died or let go); each
   * comes with one hold to release. At `startUp` a row busy for a moment is waited for rather than missed,
   * and the runs still leased to this replica's owner are taken too: they are a stopped process's, restarted
   * under the same name. A later scan never takes a run this replica leased and has not let go: it may be
   * one being created or planned here right now, whose hold is not counted yet (adopting it planned it again).
   */
  adopt(statuses: readonly RunStatus[], options?: { startUp?: boolean }): Promise<RunRecord[]>;
  /** Stops the heartbeat; with `releaseAll`, lets peers adopt every run held here at once. */
  stop(options: { releaseAll: boolean }): Promise<void>;
}

interface LeaseOptions {
  store: LeasesPort;
  owner: string;
  soleOwner: boolean;
  settings: ReplicaSettings;
  logger: LogPort;
  /** A peer adopted this run: stop driving it here, without settling anything. */
  onLost(runId: string): void;
}

export function createRunLeases(options: LeaseOptions): RunLeases {
  if (options.soleOwner) return soleOwnerLeases(options.settings);
  const { store, owner, settings, logger } = options;
  /** Holds per run; the lease is released in the store when the last one ends. */
  const held = new Map<string, number>();
  /** Runs with a claim on its way here: that claim will hold them (a lease a scan gives us meanwhile is ours). */
  const claiming = new Map<string, number>();
  /** Runs whose release is on its way to the store: a scan or a renewal that meets one may land before or after it. */
  const releasing = new Set<string>();
  const serial = createSerialQueue();
  /**
   * A scan or a renewal extended a lease this replica let go of meanwhile: let go of it again, after any
   * release on its way (unless a claim since holds it), so the run is neither held here nor leased to us.
   */
  const letGoAgain = (runId: string) =>
    void serial(runId, async () => {
      if (!held.has(runId)) await store.releaseRunLease({ runId, owner });
    }).catch((error: unknown) => logger.warn({ runId, err: error }, 'could not release run lease'));
  const heartbeat = createHeartbeat(
    settings.heartbeatMs,
    () => renewHeld(options, held, letGoAgain),
    () => held.size === 0,
  );
  const hold = (runId: string) => {
    countUp(held, runId);
    heartbeat.start();
  };

  const claimNow = (runId: string) =>
    serial(runId, async () => {
      // Ours already, the heartbeat keeps it; else the store decides.
      if (!held.has(runId) && !(await store.claimRunLease({ runId, owner, leaseMs: settings.leaseMs }))) return false;
      hold(runId);
      return true;
    });
  const claim = (runId: string) => {
    countUp(claiming, runId);
    return claimNow(runId).finally(() => countDown(claiming, runId));
  };
  const release = (runId: string) =>
    serial(runId, async () => {
      const effect = releaseEffect(held.get(runId));
      if (effect === 'one-hold-fewer') countDown(held, runId);
      if (effect !== 'release-lease') return;
      held.delete(runId);
      releasing.add(runId);
      try {
        await store.releaseRunLease({ runId, owner });
      } finally {
        releasing.delete(runId);
      }
    });

  return {
    settings,
    claim,
    release,
    newRunLease: { owner, leaseMs: settings.leaseMs },
    holdCreated: hold,
    async take(runId) {
      const deadline = takeDeadline(Date.now(), settings);
      while (!(await claim(runId))) {
        if (Date.now() > deadline) {
          logger.warn({ runId, owner }, 'run lease still held by another replica; going ahead');
          hold(runId); // so the release that follows balances
          return;
        }
        await sleep(takePollMs(settings));
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
      if (heartbeat.stopped) return [];
      const runs = await store.adoptRuns({
        owner,
        leaseMs: settings.leaseMs,
        statuses,
        // At start-up every run left by the process this one replaces is taken at once (a thousand runs would
        // otherwise wait twenty scans, 100 s); the periodic scans take 50 at a time, leaving peers their share.
        limit: adoptOptions.startUp ? START_UP_ADOPTION_LIMIT : 50,
        graceMs: adoptionGraceMs(settings),
        skipLocked: !adoptOptions.startUp,
        // A periodic scan leaves runs still leased to this replica alone: one just created is held only once
        // its insert has answered, and a scan read in between adopted it and planned it again (decision 030).
        ownUnexpired: Boolean(adoptOptions.startUp),
      });
      const { adopted, letGo } = newlyAdopted(runs, held, claiming, releasing);
      for (const run of adopted) hold(run.id);
      for (const run of letGo) letGoAgain(run.id);
      return adopted;
    },
    async stop({ releaseAll }) {
      heartbeat.stop();
      if (!releaseAll) return;
      for (const runId of [...held.keys()]) await store.releaseRunLease({ runId, owner }).catch(() => undefined);
      held.clear();
    },
  };
}

/** One process on the store: nobody to coordinate with, so every claim succeeds without touching it. */
function soleOwnerLeases(settings: ReplicaSettings): RunLeases {
  return {
    settings,
    claim: async () => true,
    newRunLease: undefined,
    holdCreated: () => undefined,
    take: async () => undefined,
    release: async () => undefined,
    during: (_runId, work) => work(),
    adopt: async () => [],
    stop: async () => undefined,
  };
}

/**
 * Renews every lease held here; a run the store did not renew was taken over by a peer and is dropped
 * here, and a run released while the renewal was on its way is let go of again.
 */
async function renewHeld(
  { store, owner, settings, logger, onLost }: LeaseOptions,
  held: Map<string, number>,
  letGoAgain: (runId: string) => void,
): Promise<void> {
  try {
    const asked = [...held.keys()];
    const renewed = await store.renewLeases({ owner, leaseMs: settings.leaseMs, runIds: asked });
    for (const runId of renewed) if (!held.has(runId)) letGoAgain(runId);
    for (const runId of runsLostToPeers(asked, renewed, held)) {
      held.delete(runId);
      logger.warn({ runId, owner }, 'another replica took over this run; stopping here');
      onLost(runId);
    }
  } catch (error) {
    logger.warn({ err: error, owner }, 'lease heartbeat failed');
  }
}

/**
 * A timer that runs `beat` every `everyMs` while there is something to renew: started by a hold, ended
 * after a beat that leaves nothing held, and for good by `stop`. A slow beat is not doubled up.
 */
function createHeartbeat(everyMs: number, beat: () => Promise<void>, idle: () => boolean) {
  let timer: ReturnType<typeof setInterval> | undefined;
  let beating = false;
  let stopped = false;
  const tick = async () => {
    if (beating) return;
    beating = true;
    try {
      await beat();
    } finally {
      beating = false;
      if (idle() && timer) {
        clearInterval(timer);
        timer = undefined;
      }
    }
  };
  return {
    get stopped() {
      return stopped;
    },
    start() {
      if (timer || stopped) return;
      timer = setInterval(() => void tick(), everyMs);
      timer.unref?.(); // a heartbeat alone must not keep a process alive
    },
    stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}

/** Store calls for one run go in order, so a release never overtakes the claim that follows it. */
function createSerialQueue() {
  const queues = new Map<string, Promise<unknown>>();
  return <T>(runId: string, step: () => Promise<T>): Promise<T> => {
    const next = (queues.get(runId) ?? Promise.resolve()).then(step, step);
    const tail = next.catch(() => undefined);
    queues.set(runId, tail);
    void tail.then(() => queues.get(runId) === tail && queues.delete(runId));
    return next;
  };
}

function countUp(counts: Map<string, number>, runId: string): void {
  counts.set(runId, (counts.get(runId) ?? 0) + 1);
}

/** One fewer; the run leaves the map at zero. */
function countDown(counts: Map<string, number>, runId: string): void {
  const left = (counts.get(runId) ?? 1) - 1;
  if (left > 0) counts.set(runId, left);
  else counts.delete(runId);
}
