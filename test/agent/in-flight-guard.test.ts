/**
 * A step already in flight is not started twice (decision 047, `ExecutionPass.start`). The driver performs the
 * rules' actions in order, and a skip among them is a store write it awaits. A success that lands meanwhile is
 * stored with the claims of what may start with it (finish-and-start), so a step the driver was about to start
 * may already be running when the driver gets to it. Here the skip's write is held until that has happened.
 */
import { describe, expect, it } from 'vitest';
import { decorate } from '../../src/agent/ports/decorate.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { fakeTool, standardTools } from './support/fake-tools.ts';
import { makeHarness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useMemoryStore();

/** A promise and the function that resolves it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('a step in flight', () => {
  it('is not started again by a start the driver had in hand when a success started it', async () => {
    const slowGoes = deferred();
    const bothEscalated = deferred();
    const retriedCalled = deferred();
    const skipHeld = deferred();
    const skipGoes = deferred();
    let escalations = 0;
    let skipsOfJoin = 0;
    // s runs until released; f fails once, then works (a write: a second call would be a second change); g fails.
    const slow = fakeTool({ name: 'slow_read', risk: 'read', run: async () => (await slowGoes.promise, { status: 'ok', output: { done: true } }) });
    const flaky = fakeTool({
      name: 'flaky_write',
      risk: 'write',
      run: (_args, _ctx, call) =>
        call === 1 ? { status: 'error', error: { message: 'refused (409)' } } : (retriedCalled.resolve(), { status: 'ok', output: { made: 1 } }),
    });
    const failing = fakeTool({ name: 'failing_write', risk: 'write', run: () => ({ status: 'error', error: { message: 'refused (409)' } }) });
    const store: RunStore = decorate(db.store, {
      openEscalation: async (...args) => {
        const opened = await db.store.openEscalation(...args);
        if (++escalations === 2) bothEscalated.resolve();
        return opened;
      },
      // j waits on f and g: skipped when they fail, back to pending when f is retried, skipped again (g still
      // failed) in the same batch as f's new start. That second skip waits until s's success started f.
      setStepStatus: async (input) => {
        if (input.stepId === 'j' && input.to === 'skipped' && ++skipsOfJoin === 2) {
          skipHeld.resolve();
          await skipGoes.promise;
        }
        return db.store.setStepStatus(input);
      },
    });
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({
        steps: [
          { id: 's', tool: 'slow_read', args: { key: 's' } },
          { id: 'f', tool: 'flaky_write', args: { key: 'f' } },
          { id: 'g', tool: 'failing_write', args: { key: 'g' } },
          { id: 'j', tool: 'read_thing', args: { key: 'j' }, dependsOn: ['f', 'g'] },
        ],
      }),
    );
    const tools = standardTools();
    // The agent's clock stands still: the token total read before stays fresh, so the skip and f's start come in one batch.
    const stopped = new Date();
    const h = makeHarness({ store, tools: [...tools.all, slow, flaky, failing], llm, approvers: ['UAPP'], clock: () => stopped });
    const run = await h.start();
    expect((await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).ok).toBe(true);
    await bothEscalated.promise;

    const ofF = (await h.store.listEscalations(run.id)).find((escalation) => escalation.stepId === 'f')!;
    expect((await h.agent.resolveEscalation({ escalationId: ofF.id, userId: 'UAPP', action: 'retry' })).ok).toBe(true);
    await skipHeld.promise;
    slowGoes.resolve();
    await retriedCalled.promise;
    skipGoes.resolve();
    await h.agent.idle();

    expect(flaky.calls).toHaveLength(2);
    const steps = Object.fromEntries((await h.store.listSteps(run.id)).map((step) => [step.stepId, `${step.status}/${step.attempt}`]));
    expect(steps).toEqual({ s: 'succeeded/1', f: 'succeeded/2', g: 'failed/1', j: 'skipped/0' });
    // g waits for a person; nothing else is left to do.
    expect(await h.store.getRun(run.id)).toMatchObject({ status: 'paused' });
    expect(h.errors).toEqual([]);
    h.llm.assertDone();
  });
});
