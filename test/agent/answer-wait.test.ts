/**
 * The one answer path (decision 041): a click by someone a Reassign handed the wait away from, who may no
 * longer answer it on their own standing (the approver list changed since), is refused naming who has it now,
 * and nothing changes; the person it waits on answers it.
 */
import { describe, expect, it } from 'vitest';
import { useMemoryStore } from '../helpers/store.ts';
import { spoken } from './support/spoken.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness } from './support/harness.ts';

const db = useMemoryStore();

describe('an answer to a wait handed on', () => {
  it('from someone it was handed away from is refused, saying who has it; nothing changes', async () => {
    const tools = standardTools();
    const before = makeHarness({ store: db.store, tools: tools.all, approvers: ['UAPP', 'UOLD', 'UNEW'] });
    const run = await db.store.createRun({ task: 'deploy api', requester: 'UREQ', conversation: { channel: 'C1', threadTs: 'hand.1' }, origin: 'mention' });
    await db.store.transitionRun(run.id, ['planning'], 'paused');
    const escalation = await db.store.openEscalation({
      runId: run.id,
      planVersion: null,
      stepId: null,
      kind: 'driver-failed',
      message: 'the store refused a write',
    });
    const wait = { kind: 'escalation' as const, escalationId: escalation.id };
    expect((await before.agent.reassign({ wait, userId: 'UAPP', to: 'UOLD' })).ok).toBe(true);
    expect((await before.agent.reassign({ wait, userId: 'UOLD', to: 'UNEW' })).ok).toBe(true);
    await before.agent.shutdown(1000);

    // UOLD is no longer an approver.
    const after = makeHarness({ store: db.store, tools: tools.all, approvers: ['UAPP', 'UNEW'] });
    const refused = spoken(await after.agent.resolveEscalation({ escalationId: escalation.id, userId: 'UOLD', action: 'abort' }));
    expect(refused).toEqual({
      ok: false,
      error: { code: 'not-requester-or-approver', message: 'This was handed to <@UNEW> by <@UOLD>, so your answer was not taken; <@UNEW> can answer it.' },
    });
    expect((await db.store.getEscalation(escalation.id))?.status).toBe('open');
    expect((await db.store.getRun(run.id))?.status).toBe('paused');

    expect((await after.agent.resolveEscalation({ escalationId: escalation.id, userId: 'UNEW', action: 'abort' })).ok).toBe(true);
    await after.agent.idle();
    expect((await db.store.getRun(run.id))?.status).toBe('aborted');
    expect(after.errors).toEqual([]);
  });
});
