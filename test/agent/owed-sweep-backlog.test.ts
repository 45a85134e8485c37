/**
 * A backlog of owed messages after a crash (issue 34): a process killed while a hundred runs waited on their
 * messages leaves them all owed. The next process's start-up sweep (or a peer's sweep, once the dead
 * replica's leases are let go) delivers every one of them, each once, instead of fifty and the rest a
 * sweep (5 s) per fifty later, and all at once rather than a few at a time; and a sweep whose deliveries fail
 * stops rather than claiming on.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgentContext } from '../../src/agent/context.ts';
import { createOwedPump } from '../../src/agent/delivery/owed-delivery.ts';
import type { DeliveryContext } from '../../src/agent/delivery/delivery-context.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { createMemoryRunStore } from '../../src/agent/testing/memory-store/index.ts';
import { InMemorySurface } from '../../src/agent/testing/in-memory-surface.ts';
import { createRunStore, expireLeasesOfDeadOwners } from '../../src/store/index.ts';
import { ENGINES, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

/** A sweep by one process's pump (each context stands for a process of its own). */
const sweepOwed = (ctx: DeliveryContext, options: { startUp: boolean }) => createOwedPump(() => ctx).sweep(options);

const BACKLOG = 120;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

class FailingSurface extends InMemorySurface {
  tries = 0;
  override async ask(): Promise<void> {
    this.tries++;
    throw new Error('Slack did not answer');
  }
}

function contextFor(store: RunStore, surface: InMemorySurface, owner: string, soleOwner: boolean): AgentContext {
  // Delivery reads only these members of the context.
  return {
    store,
    thread: { deliverySurface: surface },
    logger: silent,
    replica: { owner, soleOwner, leases: { settings: { owedRetryMs: 5_000 } } },
  } as unknown as AgentContext;
}

/** `count` runs each owing its question, leased to the process that died (its lease still running). */
async function backlogOf(store: RunStore, count: number, deadOwner: string): Promise<string[]> {
  const questions: string[] = [];
  for (let i = 0; i < count; i++) {
    const run = await store.createRun({ task: `wait ${i}`, requester: 'UREQ', conversation: { channel: 'C1', threadTs: `${i}.1` }, origin: 'mention' });
    const question = `${deadOwner}: question ${i}`;
    await store.owe({
      runId: run.id,
      owe: [{ id: `${run.id}/question/q1`, kind: 'question', payload: { stepId: 's1', question } }],
      owner: deadOwner,
      leaseMs: 30_000,
    });
    questions.push(question);
  }
  return questions;
}

const asked = (surface: InMemorySurface, prefix: string) =>
  surface.messages.flatMap((m) => (m.kind === 'ask' && m.question.startsWith(prefix) ? [m.question] : []));

/** Asks that hang until released, as a Slack that stops answering does. */
class HangingSurface extends InMemorySurface {
  tries: string[] = [];
  private held: (() => void)[] = [];
  override async ask(...args: Parameters<InMemorySurface['ask']>): Promise<void> {
    this.tries.push(args[2]);
    await new Promise<void>((resolve) => this.held.push(resolve));
    return super.ask(...args);
  }
  release(): void {
    for (const resolve of this.held.splice(0)) resolve();
  }
}

/** Slack answering each ask a moment later: counts how many were asked at once. */
class SlowSurface extends InMemorySurface {
  most = 0;
  private asking = 0;
  override async ask(...args: Parameters<InMemorySurface['ask']>): Promise<void> {
    this.most = Math.max(this.most, ++this.asking);
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.asking--;
    return super.ask(...args);
  }
}

describe('a sweep after a crash on the memory store', () => {
  afterEach(() => vi.useRealTimers());

  it('keeps every message of its batch, not only the one it is sending, while a slow delivery outlasts the lease: a peer sends none of them', async () => {
    vi.useFakeTimers();
    const store = createMemoryRunStore();
    const questions = await backlogOf(store, 3, 'slow');
    await vi.advanceTimersByTimeAsync(31_000); // the dead replica's leases ran out
    const surface = new HangingSurface();
    const sweeping = sweepOwed(contextFor(store, surface, 'replica-a', false), { startUp: false });
    await vi.advanceTimersByTimeAsync(95_000); // three leases' worth of Slack not answering the first
    const peer = new InMemorySurface();
    await sweepOwed(contextFor(store, peer, 'replica-b', false), { startUp: false });
    expect(asked(peer, 'slow')).toEqual([]);
    while (surface.tries.length < questions.length) {
      surface.release();
      await vi.advanceTimersByTimeAsync(10);
    }
    surface.release();
    await sweeping;
    expect(asked(surface, 'slow').sort()).toEqual([...questions].sort());
  });

  it('delivers every owed message the previous process left, each once, in one start-up sweep', async () => {
    const store = createMemoryRunStore();
    const questions = await backlogOf(store, BACKLOG, 'killed');
    const surface = new InMemorySurface();
    await sweepOwed(contextFor(store, surface, 'restarted', true), { startUp: true });
    expect(asked(surface, 'killed').sort()).toEqual([...questions].sort());
  });

  it('asks for every waiting run at once once Slack took one, so no message waits for others to be sent first', async () => {
    const store = createMemoryRunStore();
    const questions = await backlogOf(store, BACKLOG, 'queued');
    const surface = new SlowSurface();
    await sweepOwed(contextFor(store, surface, 'restarted', true), { startUp: true });
    expect(asked(surface, 'queued').sort()).toEqual([...questions].sort());
    // A few at a time, each message waited for the ones before it (and their turns of a busy store's queue).
    expect(surface.most).toBeGreaterThan(BACKLOG - 50);
  });

  it('stops after the first batch when its deliveries fail, and leaves the messages owed', async () => {
    const store = createMemoryRunStore();
    await backlogOf(store, BACKLOG, 'failing');
    const surface = new FailingSurface();
    await sweepOwed(contextFor(store, surface, 'restarted', true), { startUp: true });
    expect(surface.tries).toBeLessThanOrEqual(50);
    const later = new InMemorySurface();
    await sweepOwed(contextFor(store, later, 'next', true), { startUp: true });
    expect(asked(later, 'failing')).toHaveLength(BACKLOG);
  });
});

describe.each(ENGINES)('a sweep after a crash on %s', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(engine);
  });
  afterAll(() => database.destroy());

  it('delivers every owed message the previous process left, each once, in one start-up sweep of the sole owner', async () => {
    const store = createRunStore(database.db);
    const questions = await backlogOf(store, BACKLOG, 'killed-sole');
    const surface = new InMemorySurface();
    await sweepOwed(contextFor(store, surface, 'restarted-sole', true), { startUp: true });
    expect(asked(surface, 'killed-sole').sort()).toEqual([...questions].sort());
  });

  it('delivers every owed message a dead replica left, each once, in one sweep of a peer after its leases are let go', async () => {
    const store = createRunStore(database.db);
    const questions = await backlogOf(store, BACKLOG, 'killed-peer');
    await expireLeasesOfDeadOwners(database.db, (owner) => owner === 'killed-peer');
    const [a, b] = [new InMemorySurface(), new InMemorySurface()];
    await Promise.all([
      sweepOwed(contextFor(store, a, 'peer-a', false), { startUp: false }),
      sweepOwed(contextFor(store, b, 'peer-b', false), { startUp: false }),
    ]);
    expect([...asked(a, 'killed-peer'), ...asked(b, 'killed-peer')].sort()).toEqual([...questions].sort());
  });
});
