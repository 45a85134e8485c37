import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { planDigest, shortDigest } from '../../src/agent/model/plan/plan-digest.ts';
import { auditViolations } from '../audit/support.ts';
import { showRun } from '../helpers/run-detail.ts';
import { useTestStore } from '../helpers/store.ts';
import { fakeTool, standardTools } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';
import { spoken } from './support/spoken.ts';

// The real engine, not the in-memory store: the tests rewrite stored plans and approvals with SQL, as a tampered row or an approval from before digests would be.
const db = useTestStore();
let h: Harness;
afterEach(() => {
  h.llm.assertDone();
  expect(h.errors).toEqual([]);
});

/** A question first, so the run waits after approval with its write step not yet started. */
const askThenWrite = plannerAnswer({
  steps: [
    { id: 's1', tool: 'ask_human', args: { question: 'Which title?' } },
    { id: 's2', tool: 'create_thing', args: { title: 'release notes' }, dependsOn: ['s1'] },
  ],
});

/** Changes the stored v1 of a run behind the agent's back, as someone with the database's password could. */
async function tamper(runId: string, title: string) {
  await db.database.db.execute(
    sql`update plan_versions set plan = jsonb_set(plan, '{steps,1,args,title}', to_jsonb(${title}::text)) where run_id = ${runId} and version = 1`,
  );
}

describe('a digest bound to the approval', () => {
  it('records the digest the approver saw; a click drawn for other content is refused like a stale version', async () => {
    const tools = standardTools();
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', askThenWrite) });
    const run = await h.start('write the notes', 'UREQ');
    const [shown] = h.surface.messages.filter((m) => m.kind === 'plan' && m.runId === run.id);
    const digest = shown?.kind === 'plan' ? shown.proposal.digest : undefined;
    expect(digest).toBe(await planDigest((await h.store.getPlanVersion(run.id, 1))!.plan));

    const stale = await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve', digest: '0123456789ab' });
    expect(spoken(stale)).toEqual({ ok: false, error: expect.objectContaining({ code: 'plan-changed', message: expect.stringMatching(/plan changed/) }) });
    expect(await h.store.listApprovals(run.id)).toEqual([]);

    expect(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve', digest: shortDigest(digest!) })).toEqual({
      ok: true,
      value: undefined,
    });
    expect((await h.store.listApprovals(run.id)).map((a) => a.digest)).toEqual([digest]);
    await h.agent.idle();
    await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'fine' });
    await h.agent.idle();
    expect(tools.write.calls.map((call) => call.args)).toEqual([{ title: 'release notes' }]);
    expect(await auditViolations(h.store, tools.all, [], run.id)).toEqual([]);
  });

  it('a stored plan changed after approval: nothing more starts, the run escalates, audit and show report it', async () => {
    const tools = standardTools();
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', askThenWrite) });
    const run = await h.start('write the notes', 'UREQ');
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    const approved = (await h.store.listApprovals(run.id))[0]!.digest!;

    await tamper(run.id, 'something else entirely');
    await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'fine' });
    await h.agent.idle();

    expect(tools.write.calls).toEqual([]);
    const escalations = h.surface.messages.filter((m) => m.kind === 'escalation' && m.runId === run.id);
    expect(escalations.map((m) => (m.kind === 'escalation' ? String(m.escalation.message) : ''))).toEqual([
      expect.stringMatching(/^Plan v1 changed after it was approved .*nothing was started\.$/),
    ]);
    expect((await h.store.getRun(run.id))?.status).toBe('paused');

    const violations = await auditViolations(h.store, tools.all, [], run.id);
    expect(violations).toEqual([
      expect.objectContaining({ check: 'content-changed-after-approval', planVersion: 1, message: expect.stringContaining(shortDigest(approved)) }),
    ]);
    const versions = await h.store.listPlanVersions(run.id);
    const shown = showRun((await h.store.getRun(run.id))!, {
      versions,
      approvals: await h.store.listApprovals(run.id),
      digests: new Map([[1, await planDigest(versions[0]!.plan)]]),
    });
    expect(shown).toContain(`digest ${shortDigest(approved)} — MISMATCH`);
  });

  it('an approval stored before digests still lets its version run, and show says so', async () => {
    const tools = standardTools();
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', askThenWrite) });
    const run = await h.start('write the notes', 'UREQ');
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    await db.database.db.execute(sql`update approvals set digest = null where run_id = ${run.id}`);
    await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'fine' });
    await h.agent.idle();
    expect(tools.write.calls).toHaveLength(1);
    expect(await auditViolations(h.store, tools.all, [], run.id)).toEqual([]);
    const versions = await h.store.listPlanVersions(run.id);
    const shown = showRun((await h.store.getRun(run.id))!, {
      versions,
      approvals: await h.store.listApprovals(run.id),
      digests: new Map([[1, await planDigest(versions[0]!.plan)]]),
    });
    expect(shown).toContain('approved by UAPP');
    expect(shown).toContain('(approved before digests)');
  });

  it('a rollback step whose stored args changed after approval is not run: failed, escalated, the rollback goes on', async () => {
    const tools = standardTools();
    const failing = fakeTool({ name: 'lookup', risk: 'read', run: () => ({ status: 'error', error: { message: 'boom' } }) });
    const llm = new ScriptedLlm().on(
      'planner',
      plannerAnswer({
        steps: [
          { id: 's1', tool: 'create_thing', args: { title: 'one' } },
          { id: 's2', tool: 'lookup', args: { key: 'k' }, dependsOn: ['s1'] },
        ],
        rollback: [{ id: 'r1', tool: 'delete_thing', args: { number: 1 }, undoes: 's1' }],
      }),
    );
    h = makeHarness({ store: db.store, tools: [...tools.all, failing], llm, budgets: { maxReplans: 0 } });
    const run = await h.start();
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    const failed = (await h.store.listEscalations(run.id)).find((e) => e.status === 'open')!;
    await db.database.db.execute(
      sql`update plan_versions set plan = jsonb_set(plan, '{rollback,0,args,number}', '99'::jsonb) where run_id = ${run.id} and version = 1`,
    );
    expect((await h.agent.resolveEscalation({ escalationId: failed.id, userId: 'UAPP', action: 'abort' })).ok).toBe(true);
    await h.agent.idle();
    expect(tools.undo.calls).toEqual([]);
    const r1 = (await h.store.listSteps(run.id)).find((s) => s.kind === 'rollback' && s.stepId === 'r1');
    expect(r1).toMatchObject({ status: 'failed', error: { code: 'plan-changed' } });
    const escalations = h.surface.messages.filter((m) => m.kind === 'escalation' && m.runId === run.id);
    expect(escalations.map((m) => (m.kind === 'escalation' ? String(m.escalation.message) : ''))).toContainEqual(
      expect.stringMatching(/^Rollback step r1 of plan v1 was not run: the plan changed after it was approved/),
    );
    // The thread names the rollback step by its title and offers nothing to choose: the rollback goes on without it.
    const refused = escalations.find((m) => m.kind === 'escalation' && m.escalation.kind === 'not-approved');
    expect(refused?.kind === 'escalation' ? refused.offer : undefined).toMatchObject({
      answers: [],
      stepTitle: 'undo s1',
      happened: expect.stringMatching(/^The rollback step “undo s1” was not run: its plan changed after it was approved/),
    });
    expect((await auditViolations(h.store, tools.all, [], run.id)).map((v) => v.check)).toContain('content-changed-after-approval');
  });
});
