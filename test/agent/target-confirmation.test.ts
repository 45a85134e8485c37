import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RepoSchema } from '../../src/integrations/github/repo-ref.ts';
import { InMemorySurface } from '../../src/agent/testing/in-memory-surface.ts';
import { createAskHumanTool } from '../../src/integrations/tools/thread/ask-human.ts';
import { auditViolations } from '../audit/support.ts';
import type { PolicyGate } from '../../src/agent/decisions/policy-approval.ts';
import { approversGate, cedarGate } from '../helpers/policy-gate.ts';
import { useTestStore } from '../helpers/store.ts';
import { fakeTool, type FakeTool } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';
import { spoken } from './support/spoken.ts';
import { commentTool, createThingTool, mergePullTool } from './support/target-tools.ts';
import { said } from '../helpers/words.ts';

// The real engine, not the in-memory store: the audit test rewrites the stored confirmation with SQL, as a tampered or missing proof would leave it.
const db = useTestStore();
let h: Harness;
afterEach(() => {
  h.llm.assertDone();
  expect(h.errors).toEqual([]);
});

/** The real ask_human (its output is a person's words), and writes that say which args are their targets. */
function tools() {
  const ask = createAskHumanTool();
  const merge = mergePullTool({ method: z.string().default('merge') });
  const comment = commentTool();
  const create = createThingTool();
  const undo: FakeTool = { ...fakeTool({ name: 'delete_thing', risk: 'write', input: z.object({ number: z.number() }) }), targets: ['number'] };
  const read: FakeTool = {
    ...fakeTool({ name: 'list_pulls', risk: 'read', input: z.object({ repo: RepoSchema }), run: () => ({ status: 'ok', output: { first: 12 } }) }),
    targets: ['repo'],
  };
  return { merge, comment, create, undo, read, all: [ask, merge, comment, create, undo, read] };
}

const bystanderPlan = plannerAnswer({
  steps: [
    { id: 's0', tool: 'create_thing', args: { title: 'note' } },
    { id: 's1', tool: 'ask_human', args: { question: 'Which PR?' } },
    { id: 's2', tool: 'merge_pull', args: { repo: 'acme/api', number: '{{steps.s1.output.answer}}' }, dependsOn: ['s0', 's1'] },
  ],
  rollback: [{ id: 'r1', tool: 'delete_thing', args: { number: '{{steps.s0.output.number}}' }, undoes: 's0' }],
});

async function approvedAndAnswered(t: ReturnType<typeof tools>, answer: string) {
  h = makeHarness({
    store: db.store,
    tools: t.all,
    llm: new ScriptedLlm().on('planner', bystanderPlan),
    approvers: ['UREQ', 'UAPP', 'UAPP2'],
    soleOwner: true,
  });
  const run = await h.start('merge the PR I name', 'UREQ');
  expect(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).toEqual({ ok: true, value: undefined });
  await h.agent.idle();
  expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: `${answer}` })).toBe('answered');
  await h.agent.idle();
  return run;
}

const confirm = (runId: string, userId: string, extra: Partial<{ planVersion: number; stepId: string; decision: 'confirm' | 'abort' }> = {}) =>
  h.agent.confirmTarget({ runId, planVersion: 1, stepId: 's2', userId, decision: 'confirm', ...extra }).then(spoken);

describe('Confirm for a target filled in at run time', () => {
  it('a merge whose number came from an answer waits, shows the filled-in values, and runs once on an approver’s Confirm', async () => {
    const t = tools();
    const run = await approvedAndAnswered(t, '666');
    expect(t.merge.calls).toEqual([]);
    expect((await h.store.getRun(run.id))?.status).toBe('paused');
    const [asked] = h.surface.of(run.id, 'confirm');
    expect(asked?.confirmation).toMatchObject({
      stepId: 's2',
      planVersion: 1,
      tool: 'merge_pull',
      risk: 'destructive',
      targets: { repo: 'acme/api', number: 666 },
      lateBound: ['number'],
      status: 'pending',
    });
    expect((await h.store.listSteps(run.id)).find((s) => s.stepId === 's2')?.status).toBe('waiting');

    expect(await confirm(run.id, 'UREQ')).toEqual({ ok: false, error: expect.objectContaining({ code: 'requester-may-not-confirm-destructive' }) });
    expect(await confirm(run.id, 'UBYSTANDER')).toEqual({ ok: false, error: expect.objectContaining({ code: 'not-approver' }) });
    expect(await confirm(run.id, 'UAPP', { planVersion: 2 })).toEqual({ ok: false, error: expect.objectContaining({ code: 'not-waiting' }) });
    await h.agent.idle();
    expect(t.merge.calls).toEqual([]);

    // Two approvers click at once: one decision counts, the other is told who decided.
    const clicks = await Promise.all([confirm(run.id, 'UAPP'), confirm(run.id, 'UAPP2')]);
    await h.agent.idle();
    const winner = clicks[0].ok ? 'UAPP' : 'UAPP2';
    expect(clicks.filter((click) => click.ok)).toHaveLength(1);
    expect(clicks.find((click) => !click.ok)).toEqual({
      ok: false,
      error: { code: 'already-decided', message: `This was already confirmed by <@${winner}>.` },
    });
    expect(t.merge.calls.map((c) => c.args)).toEqual([{ repo: 'acme/api', number: 666, method: 'merge' }]);
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
    const [stored] = await h.store.listConfirmations(run.id);
    expect(stored).toMatchObject({ status: 'confirmed', decidedBy: winner, targets: { repo: 'acme/api', number: 666 }, decidedAt: expect.any(Date) });
    // The Confirm records the policy it was permitted under, so the audit judges it by that policy (decision 046).
    expect((await h.store.listEvents(run.id)).filter((e) => e.type === 'target-confirmed').map((e) => e.data)).toEqual([
      {
        planVersion: 1,
        stepId: 's2',
        by: winner,
        targets: { repo: 'acme/api', number: 666 },
        policy: { hash: expect.stringMatching(/^[0-9a-f]{64}$/), rules: expect.any(Array), groups: [] },
      },
    ]);

    // The audit proves it from the store, and notices when the proof is missing or names other values.
    const approvers = ['UREQ', 'UAPP', 'UAPP2'];
    expect((await auditViolations(h.store, t.all, approvers, run.id)).map((v) => v.message)).toEqual([]);
    // The confirmer left the approvers since: judged by the policy in force when they confirmed, still no violation.
    const approversToday = approvers.filter((id) => id !== winner);
    expect((await auditViolations(h.store, t.all, approversToday, run.id)).map((v) => v.message)).toEqual([]);
    // A Confirm stored before policies were recorded with it: judged by the policy its version was approved under.
    const setPolicy = (policy: unknown) =>
      db.database.db.execute(
        sql`update events set data = jsonb_set(data, '{policy}', ${JSON.stringify(policy)}::jsonb) - ${policy === null ? 'policy' : ''} where run_id = ${run.id} and type = 'target-confirmed'`,
      );
    await setPolicy(null);
    expect((await auditViolations(h.store, t.all, approversToday, run.id)).map((v) => v.message)).toEqual([]);
    // A Confirm recorded under a policy whose texts are not stored cannot be shown to be allowed.
    await setPolicy({ hash: 'f'.repeat(64), rules: ['approvers'], groups: [] });
    expect((await auditViolations(h.store, t.all, approvers, run.id)).map((v) => v.message)).toEqual([
      `s2's target was confirmed by ${winner} under policy ffffffffffff, whose texts are not stored`,
    ]);
    // Under a policy that did not let them confirm, it is reported, whatever today's approvers say.
    const other = approversGate(['UOTHER']).current().hash;
    await setPolicy({ hash: other, rules: [], groups: [] });
    expect((await auditViolations(h.store, t.all, approvers, run.id)).map((v) => v.message)).toEqual([
      `s2's target was confirmed by ${winner}, whom policy ${other.slice(0, 12)} (in force when they confirmed) does not permit to confirm it`,
    ]);
    await setPolicy(null);
    await db.database.db.execute(
      sql`update target_confirmations set targets = ${JSON.stringify({ repo: 'acme/api', number: 7 })}::jsonb where run_id = ${run.id}`,
    );
    expect((await auditViolations(h.store, t.all, approvers, run.id)).map((v) => v.message)).toEqual([
      's2 of v1 (attempt 1) acted on other target values than the ones confirmed',
    ]);
    await db.database.db.execute(sql`update target_confirmations set status = 'pending' where run_id = ${run.id}`);
    expect((await auditViolations(h.store, t.all, approvers, run.id)).map((v) => `${v.check}: ${v.message}`)).toEqual([
      'late-bound-target-confirmed: s2 of v1 acted on a target filled at run time without a Confirm',
    ]);
  });

  it('Reassign hands a destructive Confirm only to someone who may confirm it, never to its requester; the reminder names them', async () => {
    const t = tools();
    const run = await approvedAndAnswered(t, '666');
    const wait = { kind: 'confirm' as const, runId: run.id, planVersion: 1, stepId: 's2' };
    const reassign = (userId: string, to: string) => h.agent.reassign({ wait, userId, to }).then(spoken);
    expect(await reassign('UBYSTANDER', 'UAPP2')).toEqual({ ok: false, error: expect.objectContaining({ code: 'not-allowed' }) });
    expect(await reassign('UAPP', 'UBYSTANDER')).toEqual({ ok: false, error: expect.objectContaining({ code: 'addressee-may-not-answer' }) });
    // The requester is an approver here, but a destructive step needs someone else: a hand-over does not change that.
    expect(await reassign('UAPP', 'UREQ')).toEqual({ ok: false, error: expect.objectContaining({ code: 'addressee-may-not-answer' }) });
    expect(await reassign('UAPP', 'UAPP2')).toEqual({ ok: true, value: { runId: run.id, to: 'UAPP2', from: null, by: 'UAPP' } });
    expect(await reassign('UAPP', 'UAPP2')).toEqual({ ok: false, error: expect.objectContaining({ code: 'already-addressed' }) });
    expect(await reassign('UAPP', 'UAPP')).toEqual({ ok: false, error: expect.objectContaining({ code: 'same-person' }) });
    expect(await reassign('UAPP', 'UREQ')).toEqual({ ok: false, error: expect.objectContaining({ code: 'addressee-may-not-answer' }) });
    expect((await h.store.listEvents(run.id)).filter((e) => e.type === 'wait-reassigned').map((e) => e.data)).toEqual([
      { wait: 'confirm', key: 'v1/s2', to: 'UAPP2', from: null, by: 'UAPP' },
    ]);
    const waiting = await h.agent.waitsFor({ userId: 'UAPP2' });
    expect(waiting).toEqual([{ run: expect.objectContaining({ id: run.id }), wait, handedBy: 'UAPP' }]);
    expect(await h.agent.waitsFor({ userId: 'UREQ' })).toEqual([]); // the requester may not confirm their own destructive step

    await h.agent.housekeep(new Date(Date.now() + 1801 * 1000));
    expect(h.surface.of(run.id, 'notice').map((notice) => said(notice.text))).toContain('<@UAPP2> this is still waiting on you (<@UAPP> handed it to you).');
    expect(await confirm(run.id, 'UREQ')).toEqual({ ok: false, error: expect.objectContaining({ code: 'requester-may-not-confirm-destructive' }) });
    expect(await confirm(run.id, 'UAPP2')).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(t.merge.calls).toHaveLength(1);
    expect(await reassign('UAPP', 'UAPP2')).toEqual({ ok: false, error: expect.objectContaining({ code: 'wait-closed' }) });
  });

  it('Abort ends the run and rolls back what succeeded; the merge never runs', async () => {
    const t = tools();
    const run = await approvedAndAnswered(t, '#666');
    expect(spoken(await confirm(run.id, 'UBYSTANDER', { decision: 'abort' }))).toEqual({
      ok: false,
      error: { code: 'not-requester-or-approver', message: 'Only <@UREQ> (who asked) or an approver may abort this run.' },
    });
    expect(await confirm(run.id, 'UREQ', { decision: 'abort' })).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(t.merge.calls).toEqual([]);
    expect(t.undo.calls.map((c) => c.args)).toEqual([{ number: 5 }]);
    expect((await h.store.getRun(run.id))?.status).toBe('aborted');
    expect(await confirm(run.id, 'UAPP')).toEqual({ ok: false, error: expect.objectContaining({ code: 'run-ended' }) });
    expect((await h.store.listConfirmations(run.id))[0]).toMatchObject({ status: 'aborted', decidedBy: 'UREQ' });
  });

  it('a Confirm nobody answers is asked again once, then expires: its step is aborted, nothing is undone, and the run ends without succeeding', async () => {
    const t = tools();
    const run = await approvedAndAnswered(t, '666');
    const [asked] = h.surface.of(run.id, 'confirm');
    const opened = asked!.confirmation.createdAt.getTime();
    const at = (seconds: number) => new Date(opened + seconds * 1000);

    await h.agent.housekeep(at(1799));
    expect(h.surface.of(run.id, 'confirm')).toHaveLength(1);
    await h.agent.housekeep(at(1800));
    await h.agent.housekeep(at(3600));
    expect(h.surface.of(run.id, 'confirm')).toHaveLength(2); // reminded once

    await h.agent.housekeep(at(86_400));
    await h.agent.idle();
    expect(t.merge.calls).toEqual([]);
    // Its step is aborted, not the run (CONTRACT §5): nothing is rolled back, and what ran before stays done.
    expect(t.undo.calls).toEqual([]);
    expect((await h.store.listConfirmations(run.id))[0]).toMatchObject({ status: 'aborted', decidedBy: 'tandem:expired' });
    // Its copies lose Confirm and Abort at once and say why, on this surface as in Slack.
    const expired = h.surface.of(run.id, 'confirm-expired');
    expect(expired.map((m) => m.confirmation.stepId)).toEqual(['s2']);
    expect(said(expired[0]!.why)).toBe('Expired: nobody confirmed within 1 day, so this step did not run.');
    const steps = await h.store.listSteps(run.id);
    expect(steps.find((step) => step.stepId === 's2')).toMatchObject({
      status: 'skipped',
      error: { message: 'aborted: nobody confirmed what it acts on within 1 day, so it did not run' },
    });
    expect(steps.find((step) => step.stepId === 's0')).toMatchObject({ status: 'succeeded' });
    const [summary] = h.surface.of(run.id, 'summary');
    // Its true outcome: not a success (the run's record says it finished; the summary says what was skipped and why).
    expect(summary!.summary.verdict).toMatchObject({ kind: 'finished-with-problems', skipped: ['step s2'] });
    // A late click decides nothing, and is told the Confirm expired (not who "decided" it: nobody did).
    const late = await confirm(run.id, 'UAPP');
    expect(late.ok).toBe(false);
    expect(t.merge.calls).toEqual([]);
  });

  it('an expired Confirm skips what depends on its step, and the steps beside it still run', async () => {
    const t = tools();
    h = makeHarness({
      store: db.store,
      tools: t.all,
      llm: new ScriptedLlm().on(
        'planner',
        plannerAnswer({
          steps: [
            { id: 's1', tool: 'ask_human', args: { question: 'Which PR?' } },
            { id: 's2', tool: 'merge_pull', args: { repo: 'acme/api', number: '{{steps.s1.output.answer}}' }, dependsOn: ['s1'] },
            { id: 's3', tool: 'comment', args: { repo: 'acme/api', number: 1, body: 'merged' }, dependsOn: ['s2'] },
            { id: 's4', tool: 'list_pulls', args: { repo: 'acme/api' }, dependsOn: ['s1'] },
          ],
        }),
      ),
      approvers: ['UREQ', 'UAPP'],
      soleOwner: true,
    });
    const run = await h.start('merge the PR I name', 'UREQ');
    expect(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: '7' })).toBe('answered');
    await h.agent.idle();
    const [asked] = h.surface.of(run.id, 'confirm');
    await h.agent.housekeep(new Date(asked!.confirmation.createdAt.getTime() + 86_400_000));
    await h.agent.idle();

    const status = Object.fromEntries((await h.store.listSteps(run.id)).map((step) => [step.stepId, step.status]));
    expect(status).toEqual({ s1: 'succeeded', s2: 'skipped', s3: 'skipped', s4: 'succeeded' });
    expect(t.merge.calls).toEqual([]);
    expect(t.comment.calls).toEqual([]);
    expect(t.read.calls).toHaveLength(1);
    expect(h.surface.of(run.id, 'summary')[0]!.summary.verdict?.kind).toBe('finished-with-problems');
  });

  it('survives a restart: the step still waits, and a Confirm given to the new process runs it once', async () => {
    const t = tools();
    const run = await approvedAndAnswered(t, '31');
    await h.agent.shutdown(1000);
    h = makeHarness({ store: db.store, tools: t.all, approvers: ['UREQ', 'UAPP'], soleOwner: true, owner: 'replica-b' });
    await h.agent.resume();
    await h.agent.idle();
    expect(t.merge.calls).toEqual([]);
    // Still pending an hour on: asked again (once per interval, whichever replica sweeps).
    const later = new Date(Date.now() + 61 * 60_000);
    await h.agent.housekeep(later);
    await h.agent.housekeep(later);
    expect(h.surface.of(run.id, 'confirm').map((m) => m.confirmation.targets)).toEqual([{ repo: 'acme/api', number: 31 }]);
    expect(await confirm(run.id, 'UAPP')).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(t.merge.calls.map((c) => c.args.number)).toEqual([31]);
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
  });

  it('a Confirm request whose post failed stays owed and is delivered once by the next process', async () => {
    const t = tools();
    class FailingOnce extends InMemorySurface {
      failed = false;
      override async confirmTarget(...args: Parameters<InMemorySurface['confirmTarget']>): Promise<void> {
        if (!this.failed) {
          this.failed = true;
          throw new Error('Slack is down');
        }
        return super.confirmTarget(...args);
      }
    }
    const surface = new FailingOnce();
    h = makeHarness({
      store: db.store,
      tools: t.all,
      llm: new ScriptedLlm().on('planner', bystanderPlan),
      approvers: ['UREQ', 'UAPP'],
      soleOwner: true,
      surface,
    });
    const run = await h.start('merge the PR I name', 'UREQ');
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: '44' });
    await h.agent.idle();
    expect(surface.failed).toBe(true);
    expect(surface.of(run.id, 'confirm')).toEqual([]);
    h.errors.length = 0; // the failed delivery was logged
    await h.agent.shutdown(1000);

    const next = new InMemorySurface();
    h = makeHarness({ store: db.store, tools: t.all, approvers: ['UREQ', 'UAPP'], soleOwner: true, owner: 'replica-b', surface: next });
    await h.agent.resume();
    await h.agent.idle();
    expect(next.of(run.id, 'confirm').map((m) => m.confirmation.targets)).toEqual([{ repo: 'acme/api', number: 44 }]);
    await h.agent.shutdown(1000);
  });

  it('needs no Confirm for a target a system gave, nor for content a person wrote', async () => {
    const t = tools();
    const plan = plannerAnswer({
      steps: [
        { id: 's1', tool: 'list_pulls', args: { repo: 'acme/api' } },
        { id: 's2', tool: 'ask_human', args: { question: 'What should the comment say?' } },
        {
          id: 's3',
          tool: 'comment',
          args: { repo: 'acme/api', number: '{{steps.s1.output.first}}', body: '{{steps.s2.output.answer}}' },
          dependsOn: ['s1', 's2'],
        },
      ],
    });
    h = makeHarness({ store: db.store, tools: t.all, llm: new ScriptedLlm().on('planner', plan), approvers: ['UAPP'], soleOwner: true });
    const run = await h.start('comment', 'UREQ');
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
    await h.agent.idle();
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'looks good' })).toBe('answered');
    await h.agent.idle();
    expect(h.surface.of(run.id, 'confirm')).toEqual([]);
    expect(t.comment.calls.map((c) => c.args)).toEqual([{ repo: 'acme/api', number: 12, body: 'looks good' }]);
  });

  it('a target picked through a read of what the person named still waits (the person chose it)', async () => {
    const t = tools();
    const plan = plannerAnswer({
      steps: [
        { id: 's1', tool: 'ask_human', args: { question: 'Which repo?' } },
        { id: 's2', tool: 'list_pulls', args: { repo: '{{steps.s1.output.answer}}' }, dependsOn: ['s1'] },
        { id: 's3', tool: 'comment', args: { repo: 'acme/api', number: '{{steps.s2.output.first}}', body: 'hello' }, dependsOn: ['s2'] },
      ],
    });
    h = makeHarness({ store: db.store, tools: t.all, llm: new ScriptedLlm().on('planner', plan), approvers: ['UREQ'], soleOwner: true });
    const run = await h.start('comment', 'UREQ');
    await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UREQ', decision: 'approve' });
    await h.agent.idle();
    expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: 'acme/web' })).toBe('answered');
    await h.agent.idle();
    expect(h.surface.of(run.id, 'confirm').map((m) => m.confirmation.targets)).toEqual([{ repo: 'acme/api', number: 12 }]);
    expect(t.comment.calls).toEqual([]);
    // A write (not destructive): the requester, an approver, may confirm it.
    expect(await h.agent.confirmTarget({ runId: run.id, planVersion: 1, stepId: 's3', userId: 'UREQ', decision: 'confirm' })).toEqual({
      ok: true,
      value: undefined,
    });
    await h.agent.idle();
    expect(t.comment.calls).toHaveLength(1);
  });
});

/** s2's number and r1's number both come from the requester's answer; r1 undoes s0 when the run is aborted. */
const lateRollbackSketch = {
  steps: [
    { id: 's1', tool: 'ask_human', args: { question: 'Which PR?' } },
    { id: 's0', tool: 'create_thing', args: { title: 'note' }, dependsOn: ['s1'] },
    { id: 's2', tool: 'merge_pull', args: { repo: 'acme/api', number: '{{steps.s1.output.answer}}' }, dependsOn: ['s0', 's1'] },
  ],
  rollback: [{ id: 'r1', tool: 'comment', args: { repo: 'acme/api', number: '{{steps.s1.output.answer}}', body: 'undone' }, undoes: 's0' }],
};
const lateRollbackPlan = plannerAnswer(lateRollbackSketch);

/** Approved, answered "77", and aborted at s2's Confirm: the rollback reaches r1, whose target came from the answer. */
async function abortedBeforeLateRollback(t: ReturnType<typeof tools>, plan = lateRollbackPlan, policy?: PolicyGate) {
  h = makeHarness({ store: db.store, tools: t.all, llm: new ScriptedLlm().on('planner', plan), approvers: ['UAPP', 'UAPP2'], soleOwner: true, policy });
  const run = await h.start('merge the PR I name', 'UREQ');
  await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' });
  await h.agent.idle();
  expect(await h.agent.followUp({ conversation: run.conversation, userId: 'UREQ', text: '77' })).toBe('answered');
  await h.agent.idle();
  expect(await confirm(run.id, 'UREQ', { decision: 'abort' })).toEqual({ ok: true, value: undefined });
  await h.agent.idle();
  return run;
}

describe('Confirm for a rollback step whose target was filled in at run time', () => {
  it('the rollback stops at it, asks, and goes on once an approver confirms; the audit counts it', async () => {
    const t = tools();
    const run = await abortedBeforeLateRollback(t);
    expect(t.comment.calls).toEqual([]);
    expect((await h.store.getRun(run.id))?.status).toBe('rolling-back');
    expect(h.surface.of(run.id, 'confirm').map((m) => [m.confirmation.stepId, m.confirmation.targets])).toEqual([
      ['s2', { repo: 'acme/api', number: 77 }],
      ['r1', { repo: 'acme/api', number: 77 }],
    ]);
    expect(h.surface.of(run.id, 'summary')).toEqual([]);

    const confirmR1 = (userId: string) => confirm(run.id, userId, { stepId: 'r1' });
    expect(await confirmR1('UBYSTANDER')).toEqual({ ok: false, error: expect.objectContaining({ code: 'not-approver' }) });
    expect(await confirmR1('UAPP')).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(t.comment.calls.map((c) => c.args)).toEqual([{ repo: 'acme/api', number: 77, body: 'undone' }]);
    expect(t.merge.calls).toEqual([]);
    expect((await h.store.getRun(run.id))?.status).toBe('aborted');
    expect(h.surface.of(run.id, 'summary').map((m) => m.summary.outcome)).toEqual(['aborted']);

    const approvers = ['UAPP', 'UAPP2'];
    expect((await auditViolations(h.store, t.all, approvers, run.id)).map((v) => v.message)).toEqual([]);
    await db.database.db.execute(sql`update target_confirmations set status = 'pending' where run_id = ${run.id} and step_id = 'r1'`);
    expect((await auditViolations(h.store, t.all, approvers, run.id)).map((v) => v.message)).toEqual([
      'r1 of v1 acted on a target filled at run time without a Confirm',
    ]);
  });

  it('under a policy that tells rollback steps apart, their Confirm is asked and audited as a rollback step', async () => {
    // UAPP approves and confirms only what undoes a change; the requester may answer and abort.
    const policy = cedarGate(`
      @id("app-approves") permit (principal == User::"UAPP", action == Action::"approve", resource);
      @id("app-confirms-rollbacks") permit (principal == User::"UAPP", action == Action::"confirm", resource is Step) when { resource.rollback };
      @id("requester-answers-aborts") permit (principal, action in [Action::"answer", Action::"abort"], resource) when { principal == context.requester };
    `);
    const t = tools();
    const run = await abortedBeforeLateRollback(t, lateRollbackPlan, policy);
    expect((await h.store.getRun(run.id))?.status).toBe('rolling-back');
    expect(await confirm(run.id, 'UAPP', { stepId: 'r1' })).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(t.comment.calls.map((c) => c.args)).toEqual([{ repo: 'acme/api', number: 77, body: 'undone' }]);
    expect((await h.store.getRun(run.id))?.status).toBe('aborted');
    expect((await auditViolations(h.store, t.all, [], run.id)).map((v) => v.message)).toEqual([]);
  });

  it("a forward step's Confirm left pending by the Abort decides nothing while the rollback waits", async () => {
    const t = tools();
    // s3 waits for its own Confirm beside s2; the Abort on s2's leaves s3's request pending, its step cancelled.
    const withS3 = plannerAnswer({
      ...lateRollbackSketch,
      steps: [
        ...lateRollbackSketch.steps,
        { id: 's3', tool: 'comment', args: { repo: 'acme/api', number: '{{steps.s1.output.answer}}', body: 'hi' }, dependsOn: ['s0', 's1'] },
      ],
    });
    const run = await abortedBeforeLateRollback(t, withS3);
    expect((await h.store.listConfirmations(run.id)).find((c) => c.stepId === 's3')?.status).toBe('pending');
    for (const decision of ['abort', 'confirm'] as const)
      expect(await confirm(run.id, 'UAPP', { stepId: 's3', decision })).toEqual({ ok: false, error: expect.objectContaining({ code: 'moved-on' }) });
    await h.agent.idle();
    expect((await h.store.getRun(run.id))?.status).toBe('rolling-back');
    expect((await h.store.listSteps(run.id)).find((s) => s.stepId === 'r1')?.status).toBe('waiting');
    expect(t.merge.calls).toEqual([]);
    expect(t.comment.calls).toEqual([]);
  });

  it('a cancel while it waits ends the run with it cancelled, and its Confirm then decides nothing', async () => {
    const t = tools();
    const run = await abortedBeforeLateRollback(t);
    expect(await h.agent.cancel({ runId: run.id, userId: 'UREQ' })).toEqual({ ok: true, value: undefined });
    expect((await h.store.listSteps(run.id)).find((s) => s.stepId === 'r1')).toMatchObject({ kind: 'rollback', status: 'cancelled' });
    expect(await confirm(run.id, 'UAPP', { stepId: 'r1' })).toEqual({ ok: false, error: expect.objectContaining({ code: 'run-ended' }) });
    await h.agent.idle();
    expect(t.comment.calls).toEqual([]);
  });

  it('nobody confirms it: reminded once, then at the TTL it expires, its step never runs and the run ends aborted naming the undo left', async () => {
    const t = tools();
    const run = await abortedBeforeLateRollback(t);
    const asked = h.surface.of(run.id, 'confirm').find((m) => m.confirmation.stepId === 'r1')!;
    const at = (seconds: number) => new Date(asked.confirmation.createdAt.getTime() + seconds * 1000);

    await h.agent.housekeep(at(1800));
    await h.agent.housekeep(at(3600));
    expect(h.surface.of(run.id, 'confirm').filter((m) => m.confirmation.stepId === 'r1')).toHaveLength(2); // reminded once
    await h.agent.housekeep(at(86_400));
    await h.agent.housekeep(at(2 * 86_400));
    await h.agent.idle();
    // Not asked a second time: the expired Confirm aborted its step (CONTRACT §5), and expiry ran nothing.
    expect(h.surface.of(run.id, 'confirm').filter((m) => m.confirmation.stepId === 'r1')).toHaveLength(2);
    expect(t.comment.calls).toEqual([]);
    expect((await h.store.getRun(run.id))?.status).toBe('aborted');
    expect((await h.store.listSteps(run.id)).find((s) => s.stepId === 'r1')).toMatchObject({ kind: 'rollback', status: 'cancelled' });
    const [summary] = h.surface.of(run.id, 'summary');
    expect(said(summary!.summary.reason)).toMatch(/^Nobody confirmed what “undo s0” acts on within 1 day, .*still to undo: \S.*\.$/);
  });

  it('Abort on it skips it, and the run ends aborted without it', async () => {
    const t = tools();
    const run = await abortedBeforeLateRollback(t);
    expect(await confirm(run.id, 'UREQ', { stepId: 'r1', decision: 'abort' })).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(t.comment.calls).toEqual([]);
    expect((await h.store.getRun(run.id))?.status).toBe('aborted');
    expect((await h.store.listSteps(run.id)).find((s) => s.stepId === 'r1')).toMatchObject({ kind: 'rollback', status: 'skipped' });
  });

  it('a restart keeps it waiting, and a Confirm given to the new process carries the rollback on', async () => {
    const t = tools();
    const run = await abortedBeforeLateRollback(t);
    await h.agent.shutdown(1000);
    h = makeHarness({ store: db.store, tools: t.all, approvers: ['UAPP', 'UAPP2'], soleOwner: true, owner: 'replica-b' });
    await h.agent.resume();
    await h.agent.idle();
    expect(t.comment.calls).toEqual([]);
    expect((await h.store.getRun(run.id))?.status).toBe('rolling-back');
    expect(await confirm(run.id, 'UAPP2', { stepId: 'r1' })).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(t.comment.calls.map((c) => c.args.number)).toEqual([77]);
    expect((await h.store.getRun(run.id))?.status).toBe('aborted');
  });
});
