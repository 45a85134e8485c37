/**
 * Issue 37: the executor's last check when a version's stored content changed after it was approved — what the
 * person the run escalates to reads, and that nothing starts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { planDigest, shortDigest } from '../../src/agent/model/plan/plan-digest.ts';
import { useMemoryStore } from '../helpers/store.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

describe("the executor's check before a version's first step, after its content changed", () => {
  const db = useMemoryStore();
  let h: Harness;
  afterEach(() => {
    h.llm.assertDone();
    expect(h.errors).toEqual([]);
  });

  it('starts nothing, pauses the run and tells a person the version changed, with both digests', async () => {
    const tools = standardTools();
    const plan = plannerAnswer({ steps: [{ id: 's1', tool: 'read_thing', args: { key: 'pr' } }] });
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', plan), approvers: ['UREQ', 'UAPP'], soleOwner: true });
    const run = await h.start('look at PR 7', 'UREQ');
    const stale = 'ab'.repeat(32);
    await h.store.recordApproval({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approved', need: 'approver-not-requester', digest: stale });
    // Moved to executing behind the decision path's back, as a hand-edited database would.
    const forced = await h.store.decide({
      runId: run.id,
      planVersion: 1,
      from: ['awaiting-approval'],
      to: 'executing',
      event: { type: 'plan-approved', data: { version: 1, by: 'forced' } },
    });
    expect(forced.ok).toBe(true);
    await h.agent.resume();
    await h.agent.idle();

    const version = await h.store.getPlanVersion(run.id, 1);
    const now = shortDigest(await planDigest(version!.plan));
    expect(tools.read.calls).toEqual([]);
    expect(await h.store.listSteps(run.id)).toEqual([]);
    expect((await h.store.getRun(run.id))?.status).toBe('paused');
    expect(h.surface.of(run.id, 'escalation').map((message) => message.escalation)).toEqual([
      expect.objectContaining({
        kind: 'not-approved',
        planVersion: 1,
        message: `Plan v1 changed after it was approved (v1 was approved by UAPP with digest ${shortDigest(stale)}, but its stored content now has digest ${now}); nothing was started.`,
      }),
    ]);
  });
});
