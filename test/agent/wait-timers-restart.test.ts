/**
 * Reminders and expiry with a controllable clock, across a restart (issue 31): the time of a wait is counted
 * from what is stored, not from the process, so a new process reminds on time, never twice, and expires the
 * wait once; expiry runs nothing.
 */
import { describe, expect, it } from 'vitest';
import { useTestStore } from '../helpers/store.ts';
import { said } from '../helpers/words.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';

const db = useTestStore();
const MINUTE = 60_000;
const writePlan = plannerAnswer({ steps: [{ id: 's1', tool: 'create_thing', args: { title: 'release notes' } }] });

describe('wait timers across a restart', () => {
  it('a plan reminded before a restart is not reminded again after it, and the new process expires it once, running nothing', async () => {
    const tools = standardTools();
    const startProcess = (owner: string, llm = new ScriptedLlm()) =>
      makeHarness({ store: db.store, tools: tools.all, llm, approvers: ['UAPP'], owner, soleOwner: true, settings: { housekeeping: { approvers: ['UAPP'] } } });
    const first = startProcess('replica-a', new ScriptedLlm().on('planner', writePlan));
    const run = await first.start('write the release notes');
    const proposed = (await db.store.getPlanVersion(run.id, 1))!.createdAt.getTime();
    const at = (minutes: number) => new Date(proposed + minutes * MINUTE + 1000);

    await first.agent.housekeep(at(29));
    expect(first.surface.of(run.id, 'notice')).toEqual([]);
    await first.agent.housekeep(at(30));
    expect(first.surface.of(run.id, 'notice')).toHaveLength(1);
    await first.agent.shutdown(1000);

    // A new process, on the same store: the reminder was sent, so it is not sent again; the expiry comes on time.
    const second = startProcess('replica-a');
    await second.agent.resume();
    await second.agent.housekeep(at(31));
    await second.agent.housekeep(at(600));
    expect(second.surface.of(run.id, 'notice')).toEqual([]);
    expect((await db.store.getRun(run.id))?.status).toBe('awaiting-approval');

    await second.agent.housekeep(at(1440));
    await second.agent.housekeep(at(1500));
    await second.agent.idle();
    expect((await db.store.getRun(run.id))?.status).toBe('expired');
    const summaries = second.surface.of(run.id, 'summary');
    expect(summaries).toHaveLength(1);
    expect(said(summaries[0]!.summary.reason!)).toMatch(/^The plan expired: nobody approved it within 1 day, and nothing ran\./);
    expect(tools.write.calls).toHaveLength(0);
    // An Approve clicked after the expiry, on the new process, is refused as expired and runs nothing.
    const late = await second.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    expect(late).toEqual({ ok: false, error: expect.objectContaining({ code: 'wait-expired' }) });
    expect(tools.write.calls).toHaveLength(0);
    expect([...first.errors, ...second.errors]).toEqual([]);
  });
});
