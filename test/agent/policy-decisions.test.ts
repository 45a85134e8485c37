import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import type { PolicyGate } from '../../src/agent/decisions/policy-approval.ts';
import { loadPolicy } from '../../src/policy/cedar-engine.ts';
import { useTestStore } from '../helpers/store.ts';
import { auditRuns } from '../../src/audit/audit.ts';
import { AUDIT_CHECKS } from '../../src/audit/checks/index.ts';
import { auditContextOf } from '../audit/support.ts';
import { policyMadeInTests } from '../helpers/policy-gate.ts';
import { standardTools } from './support/fake-tools.ts';
import { makeHarness, type Harness } from './support/harness.ts';
import { ScriptedLlm, plannerAnswer } from './support/scripted-llm.ts';
import { spoken } from './support/spoken.ts';
import { plainWords } from '../../src/bot/views/text.ts';

const db = useTestStore();
let h: Harness;
afterEach(() => {
  h.llm.assertDone();
  expect(h.errors).toEqual([]);
});

const POLICY = `
@id("reads") @who("a member of @eng")
permit (principal in Group::"S_ENG", action == Action::"approve", resource is Step)
when { resource.risk == "read" };

@id("merges") @who("two members of @owners") @reason("Merging") @approvals("2")
permit (principal in Group::"S_OWNERS", action == Action::"approve", resource is Step)
when { resource.tool == "merge_thing" };

@id("ops-auto-run")
permit (principal in Group::"S_ENG", action == Action::"auto_run", resource is Step)
when { resource.risk == "read" && resource.channel == "C_OPS" };
`;
const MEMBERS: Record<string, string[]> = { S_ENG: ['UENG', 'UOWN1', 'UOWN2'], S_OWNERS: ['UOWN1', 'UOWN2'] };
afterEach(() => {
  MEMBERS['S_OWNERS'] = ['UOWN1', 'UOWN2'];
});

function gate(text = POLICY): PolicyGate {
  const loaded = loadPolicy([{ file: 'test.cedar', text }]);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  return { current: () => loaded.value, groups: { groupsOf: async (userId, among) => among.filter((group) => MEMBERS[group]?.includes(userId)) } };
}

const mergePlan = plannerAnswer({
  steps: [
    { id: 's1', title: 'Read the pull request', tool: 'read_thing', args: { key: 'pr' } },
    { id: 's2', title: 'Merge it', tool: 'merge_thing', args: { number: 7 }, dependsOn: ['s1'] },
  ],
});

describe('approvals under TANDEM_POLICY', () => {
  it('a rule that takes two approvers: the first owner counts (the run still waits), a stranger is refused with the rule named, the second owner runs it', async () => {
    const tools = standardTools();
    const policyGate = gate();
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', mergePlan), policy: policyGate });
    const run = await h.start('merge PR 7', 'UREQ');
    const approve = (userId: string) => h.agent.decide({ runId: run.id, planVersion: 1, userId, decision: 'approve' });

    expect(spoken(await approve('USTRANGER'))).toEqual({
      ok: false,
      error: { code: 'policy-refused', message: 'Approving step 1 (“Read the pull request”) needs a member of @eng (rule `reads`).' },
    });
    expect(h.surface.of(run.id, 'plan')[0]?.proposal.approvalProgress).toEqual([
      'step 1 (“Read the pull request”) needs a member of @eng',
      'step 2 (“Merge it”) needs two members of @owners (0 of 2 approvals)',
    ]);
    expect(spoken(await approve('UOWN1'))).toEqual({
      ok: false,
      error: {
        code: 'approval-counted',
        message: 'Your approval counts; the plan still needs: step 2 (“Merge it”) needs two members of @owners (1 of 2 approvals).',
      },
    });
    await h.agent.idle();
    expect(h.surface.of(run.id, 'notice').map((notice) => plainWords(notice.text))).toEqual([
      'Approved by <@UOWN1>; still needed: step 2 (“Merge it”) needs two members of @owners (1 of 2 approvals).',
    ]);
    expect((await h.store.getRun(run.id))?.status).toBe('awaiting-approval');
    expect(tools.merge.calls).toHaveLength(0);
    // The plan message is redrawn with the progress so far: it no longer says 0 of 2.
    expect(h.surface.of(run.id, 'approval-progress').map((seen) => [seen.planVersion, seen.lines])).toEqual([
      [1, ['step 1 (“Read the pull request”): approved (rule `reads`)', 'step 2 (“Merge it”) needs two members of @owners (1 of 2 approvals)']],
    ]);

    expect(spoken(await approve('UENG'))).toEqual({
      ok: false,
      error: { code: 'policy-refused', message: 'Merging needs two members of @owners (rule `merges`).' },
    });
    expect(spoken(await approve('UOWN1'))).toEqual({
      ok: false,
      error: {
        code: 'policy-refused',
        message: 'You already approved v1; it still waits for someone else: step 2 (“Merge it”) needs two members of @owners (1 of 2 approvals).',
      },
    });

    expect(await approve('UOWN2')).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect(tools.merge.calls).toHaveLength(1);
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');

    // Each click recorded the policy's hash and the rules that permitted it; the audit judges them by that policy.
    const engine = policyGate.current();
    expect((await h.store.listApprovals(run.id)).map((a) => [a.userId, a.policyHash, a.policyRules])).toEqual([
      ['UOWN1', engine.hash, ['reads', 'merges']],
      ['UOWN2', engine.hash, ['merges']],
    ]);
    const audit = (policyOf: (hash: string) => typeof engine | undefined) =>
      auditRuns(h.store, { ...auditContextOf(tools.all), policyOf }, { runId: run.id, checks: AUDIT_CHECKS });
    expect(await audit((hash) => (hash === engine.hash ? engine : undefined))).toEqual({ runs: 1, violations: [] });
    // Judged by another policy than the one in force then (here: texts not stored), it is reported.
    expect(await audit(() => undefined)).toMatchObject({
      violations: [{ check: 'decision-not-permitted', message: expect.stringContaining('whose texts are not stored') }],
    });
    // A policy under which one owner would have had to suffice is not the one these decisions were made by:
    const stricter = loadPolicy([{ file: 'stricter.cedar', text: POLICY.replace('@approvals("2")', '@approvals("3")') }]);
    if (!stricter.ok) throw new Error('stricter policy did not load');
    expect(await audit(() => stricter.value)).toMatchObject({
      violations: [
        { check: 'decision-not-permitted', message: expect.stringContaining('step 2 (“Merge it”) needs two members of @owners (2 of 3 approvals)') },
      ],
    });
    // Each click also recorded the groups its approver was in then: the audit judges with those, not today's membership.
    expect((await h.store.listApprovals(run.id)).map((a) => [a.userId, a.policyGroups])).toEqual([
      ['UOWN1', ['S_ENG', 'S_OWNERS']],
      ['UOWN2', ['S_ENG', 'S_OWNERS']],
    ]);
    MEMBERS['S_OWNERS'] = [];
    expect(await audit((hash) => (hash === engine.hash ? engine : undefined))).toEqual({ runs: 1, violations: [] });
    // A decision whose recorded membership does not permit it (UOWN2 stored as outside @owners) is reported.
    await db.database.db.execute(sql`update approvals set policy_groups = '["S_ENG"]'::jsonb where run_id = ${run.id} and user_id = 'UOWN2'`);
    expect(await audit((hash) => (hash === engine.hash ? engine : undefined))).toMatchObject({
      violations: [
        { check: 'decision-not-permitted', message: expect.stringContaining('step 2 (“Merge it”) needs two members of @owners (1 of 2 approvals)') },
      ],
    });
  });
});

describe('a write plan the policy lets run without a click', () => {
  it('records the policy, its rule and the requester’s groups with the auto-approval; the audit judges the run by that policy', async () => {
    const tools = standardTools();
    const autoCreate = `${POLICY}
@id("eng-creates")
permit (principal in Group::"S_ENG", action == Action::"auto_run", resource is Step)
when { resource.tool == "create_thing" };
`;
    const policyGate = gate(autoCreate);
    const writePlan = plannerAnswer({ steps: [{ id: 's1', tool: 'create_thing', args: { title: 'x' } }] });
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', writePlan), policy: policyGate });
    const run = await h.start('create x', 'UENG');
    await h.agent.idle();
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
    const engine = policyGate.current();
    expect((await h.store.listApprovals(run.id)).map((a) => [a.userId, a.via, a.policyHash, a.policyRules, a.policyGroups, a.why])).toEqual([
      ['tandem:auto', 'auto', engine.hash, ['eng-creates'], ['S_ENG'], `policy ${engine.hash.slice(0, 12)} lets it run without a click: eng-creates`],
    ]);
    const audit = (policyOf: (hash: string) => typeof engine | undefined) => auditRuns(h.store, { ...auditContextOf(tools.all), policyOf }, { runId: run.id });
    expect(await audit((hash) => (hash === engine.hash ? engine : undefined))).toEqual({ runs: 1, violations: [] });
    expect(await audit(() => undefined)).toMatchObject({
      violations: [{ check: 'auto-run-not-permitted', message: expect.stringContaining('whose texts are not stored') }],
    });
    // Judged by a policy without the rule, the same run is one that should have waited for a click.
    const without = gate().current();
    expect(await audit(() => without)).toMatchObject({
      violations: [
        {
          check: 'auto-run-not-permitted',
          message: `v1 ran without a click, but policy ${engine.hash.slice(0, 12)} does not let it run without one on every step`,
        },
      ],
    });
  });
});

describe('going ahead with a low-confidence plan under TANDEM_POLICY', () => {
  it('"approve anyway" is an approval like a click on the plan: it records the policy hash and the rules that permitted it', async () => {
    const tools = standardTools();
    const policyGate = gate();
    const unsure = plannerAnswer({ confidence: 0.3, steps: [{ id: 's1', tool: 'read_thing', args: { key: 'pr' } }] });
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', unsure), policy: policyGate });
    const run = await h.start('read PR 7', 'UREQ');
    const escalation = (await h.store.listEscalations(run.id)).find((e) => e.kind === 'low-confidence');
    if (!escalation) throw new Error('no low-confidence escalation');
    expect(await h.agent.resolveEscalation({ escalationId: escalation.id, userId: 'UENG', action: 'approve' })).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
    expect((await h.store.listApprovals(run.id)).map((a) => [a.userId, a.decision, a.policyHash, a.policyRules])).toEqual([
      ['UENG', 'approved', policyGate.current().hash, ['reads']],
    ]);
    const engine = policyGate.current();
    expect(
      await auditRuns(h.store, { ...auditContextOf(tools.all), policyOf: (hash) => (hash === engine.hash ? engine : undefined) }, { runId: run.id }),
    ).toEqual({
      runs: 1,
      violations: [],
    });
  });
});

describe('with TANDEM_POLICY unset', () => {
  it('an approval asks the built-in policy made from the approver list: it records that policy and its rule, and the audit judges it by them', async () => {
    const tools = standardTools();
    const writePlan = plannerAnswer({ steps: [{ id: 's1', tool: 'create_thing', args: { title: 'x' } }] });
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', writePlan), approvers: ['UAPP'] });
    const run = await h.start('make a thing', 'UREQ');
    expect(spoken(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UOTHER', decision: 'approve' }))).toEqual({
      ok: false,
      error: { code: 'not-approver', message: 'Only approvers (TANDEM_APPROVERS) may approve a plan; you are not on the list.' },
    });
    expect(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UAPP', decision: 'approve' })).toEqual({ ok: true, value: undefined });
    await h.agent.idle();
    expect((await h.store.getRun(run.id))?.status).toBe('succeeded');
    const [approval] = await h.store.listApprovals(run.id);
    expect(approval).toMatchObject({ userId: 'UAPP', policyRules: ['approvers-approve'], policyGroups: [] });
    expect(policyMadeInTests(approval!.policyHash!)?.fromSettings).toBe(true);
    expect(await auditRuns(h.store, auditContextOf(tools.all, ['UAPP']), { runId: run.id })).toEqual({ runs: 1, violations: [] });
  });
});

describe('auto-run under TANDEM_POLICY', () => {
  it('a read-only plan runs without a click only where a rule permits auto_run (the requester in the ops channel)', async () => {
    const tools = standardTools();
    const readPlan = plannerAnswer({ steps: [{ id: 's1', tool: 'read_thing', args: { key: 'k' } }] });
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', readPlan).on('planner', readPlan), policy: gate() });
    const start = (channel: string) =>
      h.agent.startRun({ task: 'read it', requester: 'UENG', conversation: { channel, threadTs: `t-${channel}` }, origin: 'mention' });
    const inOps = await start('C_OPS');
    const elsewhere = await start('C_GENERAL');
    await h.agent.idle();
    expect((await h.store.getRun(inOps.id))?.status).toBe('succeeded');
    expect((await h.store.getRun(elsewhere.id))?.status).toBe('awaiting-approval');
  });
});

describe('other decisions under TANDEM_POLICY', () => {
  it('rejecting and cancelling ask the policy too: with no rule for them, even the requester is refused with words saying so', async () => {
    const tools = standardTools();
    h = makeHarness({ store: db.store, tools: tools.all, llm: new ScriptedLlm().on('planner', mergePlan), policy: gate() });
    const run = await h.start('merge PR 7', 'UREQ');
    expect(spoken(await h.agent.decide({ runId: run.id, planVersion: 1, userId: 'UREQ', decision: 'reject' }))).toEqual({
      ok: false,
      error: { code: 'not-requester-or-approver', message: 'Rejecting this plan is not permitted to anyone by the policy in force.' },
    });
    expect((await h.store.getRun(run.id))?.status).toBe('awaiting-approval');
  });
});
