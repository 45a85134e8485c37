import { describe, expect, it } from 'vitest';
import type { LeasesPort } from '../../src/agent/ports/leases.ts';
import { createRunLeases, type RunLeases } from '../../src/agent/replicas/run-leases.ts';
import { useMemoryStore } from '../helpers/store.ts';

const db = useMemoryStore();
const SETTINGS = { leaseMs: 30_000, heartbeatMs: 20, adoptEveryMs: 1_000, refreshMs: 100, owedRetryMs: 5_000 };
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * A store whose lease calls of one kind stop at a gate, as a busy connection would hold them: before
 * they reach the store, or after the store did the write but before the caller hears of it.
 */
function gatedStore(gated: keyof LeasesPort, when: 'before' | 'after' = 'before') {
  const store = db.store;
  let open: () => void = () => undefined;
  let reached: () => void = () => undefined;
  const gate = { opened: new Promise<void>((resolve) => (open = resolve)), reached: new Promise<void>((resolve) => (reached = resolve)) };
  const port: LeasesPort = {
    claimRunLease: (input) => store.claimRunLease(input),
    adoptRuns: (input) => store.adoptRuns(input),
    renewLeases: (input) => store.renewLeases(input),
    releaseRunLease: (input) => store.releaseRunLease(input),
    [gated]: async (input: never) => {
      const call = () => (store[gated] as (input: never) => Promise<unknown>)(input);
      if (when === 'after') {
        const result = await call();
        reached();
        await gate.opened;
        return result;
      }
      reached();
      await gate.opened;
      return call();
    },
  };
  return { port, open, reached: gate.reached };
}

function leasesFor(owner: string, store: LeasesPort, lost: string[] = []): RunLeases {
  return createRunLeases({ store, owner, soleOwner: false, settings: SETTINGS, logger: silent, onLost: (runId) => lost.push(runId) });
}

async function executingRun(): Promise<string> {
  const run = await db.store.createRun({
    task: 'lease race',
    requester: 'UREQ',
    conversation: { channel: 'C1', threadTs: `${Math.random()}` },
    origin: 'mention',
  });
  await db.store.transitionRun(run.id, ['planning'], 'executing');
  return run.id;
}

/** Whether an adoption scan by `leases` took `runId` (runs of earlier tests are free to adopt too). */
const adopts = async (leases: RunLeases, runId: string) => (await leases.adopt(['executing'])).some((run) => run.id === runId);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('run leases held by one replica while a scan or a heartbeat races its release', () => {
  it.each([
    {
      when: 'before' as const,
      case: 'a scan that lands before a release on its way does not adopt the run (the lease was still ours there)',
    },
    {
      when: 'after' as const,
      case: 'a scan that lands after a release whose answer is still on its way does not adopt the run, and lets go of the lease it took',
    },
  ])('$case: the run is free for a peer, and the replica that let go never counts it lost', async ({ when }) => {
    const runId = await executingRun();
    const gated = gatedStore('releaseRunLease', when);
    const lostOnA: string[] = [];
    const a = leasesFor('replica-a', gated.port, lostOnA);
    const b = leasesFor('replica-b', db.store);
    try {
      expect(await a.claim(runId)).toBe(true);
      const releasing = a.release(runId);
      releasing.catch(() => undefined);
      await gated.reached;
      expect(await adopts(a, runId)).toBe(false);
      gated.open();
      await releasing;
      await sleep(50); // the release the scan made necessary, and a few heartbeats
      expect(await adopts(b, runId)).toBe(true);
      await sleep(100);
      expect(lostOnA).toEqual([]);
    } finally {
      gated.open();
      await Promise.all([a.stop({ releaseAll: true }), b.stop({ releaseAll: true })]);
    }
  });

  it('a heartbeat that renews a lease released meanwhile lets go of it again, so a peer need not wait a whole lease to adopt the run', async () => {
    const runId = await executingRun();
    const gated = gatedStore('renewLeases');
    const a = leasesFor('replica-a', gated.port);
    const b = leasesFor('replica-b', db.store);
    try {
      expect(await a.claim(runId)).toBe(true);
      await gated.reached; // a heartbeat is on its way, asking to renew the run
      await a.release(runId);
      gated.open(); // ...and lands after the release
      await sleep(50);
      expect(await adopts(b, runId)).toBe(true);
    } finally {
      gated.open();
      await Promise.all([a.stop({ releaseAll: true }), b.stop({ releaseAll: true })]);
    }
  });
});

describe('a run this replica leased and has not let go', () => {
  it('is never taken by its periodic scan (it may be one being planned here right now), only at start-up under the same name', async () => {
    // Leased to its creator in the creating write, before the creator counts it as held.
    const run = await db.store.createRun({
      task: 'plan me once',
      requester: 'UREQ',
      conversation: { channel: 'C1', threadTs: `${Math.random()}` },
      origin: 'mention',
      lease: { owner: 'replica-a', leaseMs: 30_000 },
    });
    const a = leasesFor('replica-a', db.store);
    try {
      expect((await a.adopt(['planning'])).map((r) => r.id)).not.toContain(run.id);
      // A process restarted under the same owner takes what its predecessor held at once.
      const restarted = leasesFor('replica-a', db.store);
      try {
        expect((await restarted.adopt(['planning'], { startUp: true })).map((r) => r.id)).toContain(run.id);
      } finally {
        await restarted.stop({ releaseAll: true });
      }
    } finally {
      await a.stop({ releaseAll: true });
    }
  });
});
