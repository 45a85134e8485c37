/**
 * Owed messages while the surface hangs (Slack not answering for minutes): a message whose delivery is
 * under way is not delivered a second time by another claim of it (the run's own delivery, a sweep), and
 * a run's later message waits for its earlier one, so the thread gets each once and in order.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentContext } from '../../src/agent/context.ts';
import { createOwedPump } from '../../src/agent/delivery/owed-delivery.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { createMemoryRunStore } from '../../src/agent/testing/memory-store/index.ts';
import { InMemorySurface } from '../../src/agent/testing/in-memory-surface.ts';

/** Asks that hang until released, as a Slack that stops answering does; `calls` counts every ask begun. */
class HangingSurface extends InMemorySurface {
  calls: string[] = [];
  private held: (() => void)[] = [];
  hanging = true;
  failing = false;

  override async ask(...args: Parameters<InMemorySurface['ask']>): Promise<void> {
    const [, , question] = args;
    this.calls.push(question);
    if (this.hanging) await new Promise<void>((resolve) => this.held.push(resolve));
    if (this.failing) throw new Error('Slack did not answer');
    return super.ask(...args);
  }

  release(): void {
    this.hanging = false;
    for (const resolve of this.held.splice(0)) resolve();
  }
}

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

function contextFor(store: RunStore, surface: HangingSurface, owner = 'replica-a'): AgentContext {
  // Delivery reads only these members of the context; each context is one process, with its own pump.
  const ctx = {
    store,
    thread: { deliverySurface: surface },
    logger: silent,
    replica: { owner, soleOwner: false, leases: { settings: { owedRetryMs: 5_000 } } },
  } as unknown as AgentContext;
  ctx.thread.owed = createOwedPump(() => ctx);
  return ctx;
}

async function runOwing(store: RunStore, questions: string[], leaseMs = 0) {
  const run = await store.createRun({ task: 'drill', requester: 'UREQ', conversation: { channel: 'C1', threadTs: '1.1' }, origin: 'mention' });
  await store.owe({
    runId: run.id,
    owe: questions.map((question, i) => ({ id: `${run.id}/question/q${i}`, kind: 'question', payload: { stepId: `s${i}`, question } })),
    owner: 'replica-a',
    leaseMs, // 0: every claim may take them, so the lease is not what keeps a delivery single
  });
  return run;
}

const asked = (surface: HangingSurface) => surface.messages.flatMap((m) => (m.kind === 'ask' ? [m.question] : []));

describe('delivering owed messages while the surface hangs', () => {
  afterEach(() => vi.useRealTimers());

  it('keeps holding a message while its delivery hangs past the lease, so a peer does not send it too', async () => {
    vi.useFakeTimers();
    const store = createMemoryRunStore();
    const surface = new HangingSurface();
    const peerSurface = new HangingSurface();
    peerSurface.hanging = false;
    const run = await runOwing(store, ['Shall I file it?'], 30_000);
    const first = contextFor(store, surface).thread.owed.deliver(run.id);
    await vi.advanceTimersByTimeAsync(95_000); // three leases' worth of Slack not answering
    await contextFor(store, peerSurface, 'replica-b').thread.owed.sweep({ startUp: false });
    expect(peerSurface.calls).toEqual([]);
    surface.release();
    await first;
    expect(asked(surface)).toEqual(['Shall I file it?']);
  });

  it('does not start a second delivery of a message whose first is still waiting for an answer', async () => {
    const store = createMemoryRunStore();
    const surface = new HangingSurface();
    const ctx = contextFor(store, surface);
    const run = await runOwing(store, ['Shall I file it?']);

    const first = ctx.thread.owed.deliver(run.id);
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The run's own delivery again, and a sweep, while the first still hangs.
    const others = Promise.all([ctx.thread.owed.deliver(run.id), ctx.thread.owed.sweep({ startUp: false })]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(surface.calls).toEqual(['Shall I file it?']);

    surface.release();
    await Promise.all([first, others]);
    expect(asked(surface)).toEqual(['Shall I file it?']);
    await ctx.thread.owed.deliver(run.id); // sent: nothing is owed any more
    expect(surface.calls).toHaveLength(1);
  });

  it('keeps a run’s later message back while its earlier one is under way or failed, and sends both in order after', async () => {
    const store = createMemoryRunStore();
    const surface = new HangingSurface();
    const ctx = contextFor(store, surface);
    const run = await runOwing(store, ['first question', 'second question']);

    surface.failing = true;
    const first = ctx.thread.owed.deliver(run.id);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await ctx.thread.owed.sweep({ startUp: false });
    // The first is held; the second was claimed too but waits behind it.
    expect(surface.calls).toEqual(['first question']);
    surface.release();
    await first;
    // The first failed, so the second was not tried after it.
    expect(surface.calls).toEqual(['first question']);
    expect(asked(surface)).toEqual([]);

    surface.failing = false;
    await retryWhenDue(ctx, run.id, surface, 2);
    expect(asked(surface)).toEqual(['first question', 'second question']);
  });
});

describe('a message held back behind one under way', () => {
  afterEach(() => vi.useRealTimers());

  it('goes as soon as that one is delivered, not after the retry wait', async () => {
    vi.useFakeTimers();
    const store = createMemoryRunStore();
    const surface = new HangingSurface();
    const ctx = contextFor(store, surface);
    const run = await runOwing(store, ['Which environment?']);
    const first = ctx.thread.owed.deliver(run.id);
    await vi.advanceTimersByTimeAsync(10);
    // An escalation (here a second question) is owed while the first is still being posted: it waits behind it.
    await store.owe({
      runId: run.id,
      owe: [{ id: `${run.id}/question/later`, kind: 'question', payload: { stepId: 's9', question: 'Deploy failed: retry?' } }],
      owner: 'replica-a',
      leaseMs: 30_000,
    });
    await ctx.thread.owed.deliver(run.id);
    expect(surface.calls).toEqual(['Which environment?']);
    surface.release();
    await first;
    // Well inside the 5 s retry wait.
    await vi.advanceTimersByTimeAsync(100);
    expect(asked(surface)).toEqual(['Which environment?', 'Deploy failed: retry?']);
  });
});

/** Delivers the run's owed messages (as its sweeps would) until `count` were asked; a failed one is due again after its retry wait. */
async function retryWhenDue(ctx: AgentContext, runId: string, surface: HangingSurface, count: number): Promise<void> {
  for (let tries = 0; asked(surface).length < count; tries++) {
    if (tries > 200) throw new Error(`only ${asked(surface).length} of ${count} delivered`);
    await ctx.thread.owed.deliver(runId);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
