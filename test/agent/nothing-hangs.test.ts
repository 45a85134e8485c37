/**
 * Nothing hangs: a run whose driver keeps failing on an error no step outcome covers (here the store refuses
 * to record a step's end) is handed to a person with what failed, Retry and Abort, instead of a log line alone;
 * Retry drives it again once the cause is gone.
 */
import { describe, expect, it } from 'vitest';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import { createMemoryRunStore } from '../../src/agent/testing/memory-store/index.ts';
import { sleep } from '../../src/agent/sleep.ts';
import { said } from '../helpers/words.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

/** The memory store, refusing to record a step's end while `refusing` holds. */
function refusingStore() {
  const state = { refusing: true };
  const store = createMemoryRunStore();
  const refused = new Set<keyof RunStore>(['finishStep', 'finishStepAndClaim']);
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || !refused.has(property as keyof RunStore)) return value;
      return async (...args: unknown[]) => {
        if (state.refusing) throw new Error('the database refused the write: value too long for type character varying(64)');
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: wrapped, state };
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await condition()) return;
    await sleep(10);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('nothing hangs', () => {
  it('a driver that keeps failing becomes an escalation saying what failed, with Retry and Abort; Retry goes on once the cause is gone', async () => {
    const { store, state } = refusingStore();
    const tools = standardTools();
    const llm = new ScriptedLlm().on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'read_thing', args: { key: 'a' } }] }));
    const h = makeHarness({ store, tools: tools.all, llm, approvers: ['UAPP'] });
    const run = await h.start();
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await until(async () => (await store.listEscalations(run.id)).some((e) => e.status === 'open'), 'the escalation');
    const [escalation] = (await store.listEscalations(run.id)).filter((e) => e.status === 'open');
    expect(escalation).toMatchObject({ kind: 'driver-failed', stepId: null });
    await until(async () => (await store.getRun(run.id))?.status === 'paused', 'the run to pause');
    const message = h.surface.of(run.id, 'escalation')[0]!;
    expect(message.offer.answers).toEqual(['retry', 'abort']);
    expect(said(message.offer.happened)).toMatch(/The run stopped on an error it could not get past: the database refused the write/);
    // One escalation, however many drives failed.
    expect(h.surface.of(run.id, 'escalation')).toHaveLength(1);

    state.refusing = false;
    expect((await h.agent.resolveEscalation({ escalationId: escalation!.id, userId: 'UAPP', action: 'retry' })).ok).toBe(true);
    await until(async () => (await store.getRun(run.id))?.status === 'succeeded', 'the run to succeed');
    await h.agent.idle();
    // The errors logged are the failed drives; the run did not end on them.
    expect(h.errors.length).toBeGreaterThan(0);
    h.llm.assertDone();
  });

  it('housekeeping finds a run paused with nothing left to answer and hands it to a person; a run that waits for an answer is left alone', async () => {
    const store = createMemoryRunStore();
    const tools = standardTools();
    const llm = new ScriptedLlm()
      .on('planner', plannerAnswer({ steps: [{ id: 's1', tool: 'read_thing', args: { key: 'a' } }] }))
      .on('planner', plannerAnswer({ steps: [{ id: 'q1', tool: 'ask_human', args: { question: 'Which?' } }] }));
    const h = makeHarness({ store, tools: tools.all, llm, approvers: ['UAPP'] });
    const hanging = await h.start();
    // A run left paused with no wait at all (as a bug in a driver could leave it).
    await store.updateRun(hanging.id, { status: 'paused' });
    const asking = await h.start();
    await h.agent.decide({ runId: asking.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    expect((await store.getRun(asking.id))?.status).toBe('paused');

    await h.agent.housekeep();
    await h.agent.housekeep();
    const [escalation, ...more] = await store.listEscalations(hanging.id);
    expect(more).toEqual([]);
    expect(escalation).toMatchObject({ kind: 'driver-failed', status: 'open' });
    expect(said(h.surface.of(hanging.id, 'escalation')[0]!.offer.happened)).toMatch(/nothing left for anyone to answer/);
    expect(await store.listEscalations(asking.id)).toEqual([]);
    h.llm.assertDone();
    expect(h.errors).toEqual([]);
  });
});
