/**
 * The decision checks with TANDEM_POLICY set, as tables: who may steer, resolve, save, remove a schedule,
 * confirm and approve under a small rule set, and the exact words of each refusal (the rule and who may).
 * The same functions without a policy are tabled in approval-policy-tables.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  approvalProgressLines,
  checkConfirmer,
  checkPolicyApprover,
  checkRequesterOrApprover,
  checkResolver,
  checkRunbookSaver,
  checkScheduleRemover,
  policyAllowsAutoRun,
  policyVersionApproved,
  type RequesterAction,
} from '../../src/agent/decisions/approval-policy.ts';
import type { PolicyGate } from '../../src/agent/decisions/policy-approval.ts';
import { PlanSchema } from '../../src/agent/model/plan/plan.ts';
import type { ApprovalRecord } from '../../src/agent/ports/plans.ts';
import type { Risk } from '../../src/agent/ports/tool.ts';
import { loadPolicy } from '../../src/policy/cedar-engine.ts';
import { spoken } from './support/spoken.ts';

const POLICY = `
@id("requesters-steer") @who("the person who asked")
permit (principal, action in [Action::"cancel", Action::"replan", Action::"answer", Action::"abort"], resource is Run)
when { principal == context.requester };

@id("oncall-resolves") @who("a member of @oncall") @reason("Deciding how an escalated run continues")
permit (principal in Group::"S_ONCALL", action in [Action::"retry", Action::"skip", Action::"replan", Action::"abort"], resource is Run)
when { context.escalated };

@id("leads-save") @who("a member of @leads")
permit (principal in Group::"S_LEADS", action == Action::"save_runbook", resource is Run);

@id("makers-remove") @who("the person who made it")
permit (principal, action == Action::"cancel", resource is Schedule)
when { principal == resource.createdBy };

@id("reads") @who("a member of @eng")
permit (principal in Group::"S_ENG", action in [Action::"approve", Action::"confirm"], resource is Step)
when { resource.risk == "read" };

@id("merges") @who("two members of @owners") @reason("Merging") @approvals("2")
permit (principal in Group::"S_OWNERS", action in [Action::"approve", Action::"confirm"], resource is Step)
when { resource.tool == "merge" };

@id("no-self-merge") @who("someone other than the person who asked") @reason("Merging your own request")
forbid (principal, action in [Action::"approve", Action::"confirm"], resource is Step)
when { resource.tool == "merge" && principal == context.requester };

@id("ops-auto-run")
permit (principal, action == Action::"auto_run", resource is Step)
when { resource.risk == "read" && resource.channel == "C_OPS" };
`;

const MEMBERS: Record<string, string[]> = {
  S_ONCALL: ['UONCALL'],
  S_LEADS: ['ULEAD'],
  S_ENG: ['UENG', 'UOWN1', 'UOWN2', 'UREQ'],
  S_OWNERS: ['UOWN1', 'UOWN2', 'UREQ'],
};

function loadGate(): PolicyGate {
  const loaded = loadPolicy([{ file: 'test.cedar', text: POLICY }]);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  return { current: () => loaded.value, groups: { groupsOf: async (userId, among) => among.filter((group) => MEMBERS[group]?.includes(userId)) } };
}
/** Loaded once: the checks only read it. */
const GATE = loadGate();
const gate = () => GATE;

const run = (channel = 'C_ENG') => ({ id: 'run_1', requester: 'UREQ', conversation: { channel, threadTs: '1.1' } });
const risks: Record<string, Risk> = { get: 'read', merge: 'destructive' };
const riskOf = (tool: string) => risks[tool];
const versionOf = (tools: string[], version = 1) => ({
  version,
  plan: PlanSchema.parse({ goal: 'g', confidence: 0.9, steps: tools.map((tool, i) => ({ id: `s${i + 1}`, title: 't', tool })), rollback: [] }),
});
const approval = (userId: string, extra: Partial<ApprovalRecord> = {}): ApprovalRecord =>
  ({ runId: 'run_1', planVersion: 1, userId, decision: 'approved', via: 'click', digest: null, policyHash: 'p1', ...extra }) as ApprovalRecord;

const GRANT = { hash: expect.stringMatching(/^[0-9a-f]{64}$/) as string, rules: [expect.any(String) as string], groups: expect.any(Array) as string[] };

describe('steering a run under a policy', () => {
  // The directory is never asked: the policy alone decides, even for someone the approver list would take.
  const cases: [RequesterAction, string, string | undefined][] = [
    ['cancel', 'UREQ', undefined],
    ['abort', 'UREQ', undefined],
    ['answer', 'UREQ', undefined],
    ['edit', 'UREQ', undefined],
    ['revise', 'UREQ', undefined],
    ['reject', 'UREQ', undefined],
    ['cancel', 'UOTHER', 'Cancelling this run needs the person who asked (rule `requesters-steer`).'],
    ['reject', 'UOTHER', 'Rejecting this plan needs the person who asked (rule `requesters-steer`).'],
    ['edit', 'UOTHER', 'Editing this plan needs the person who asked (rule `requesters-steer`).'],
    ['revise', 'UOTHER', 'Asking for a revision of this plan needs the person who asked (rule `requesters-steer`).'],
    ['answer', 'UOTHER', "Answering this run's question needs the person who asked (rule `requesters-steer`)."],
    ['abort', 'UOTHER', 'Aborting this run needs the person who asked (rule `requesters-steer`).'],
  ];
  it.each(cases)('%s by %s', async (action, userId, refusal) => {
    const result = spoken(await checkRequesterOrApprover({ action, userId, policy: { gate: gate(), run: run() } }));
    expect(result).toEqual(refusal ? { ok: false, error: { code: 'not-requester-or-approver', message: refusal } } : { ok: true, value: undefined });
  });
});

describe('resolving an escalation, saving a runbook and removing a schedule under a policy', () => {
  it.each([
    ['retry', 'UONCALL', undefined],
    ['skip', 'UONCALL', undefined],
    ['abort', 'UREQ', undefined], // the requester's own rule, escalated or not
    ['retry', 'UREQ', 'Deciding how an escalated run continues needs a member of @oncall (rule `oncall-resolves`).'],
    ['skip', 'UENG', 'Deciding how an escalated run continues needs a member of @oncall (rule `oncall-resolves`).'],
  ] as const)('an escalation answered with %s by %s', async (action, userId, refusal) => {
    const result = spoken(await checkResolver({ userId, action, policy: { gate: gate(), run: run() } }));
    expect(result).toEqual(refusal ? { ok: false, error: { code: 'not-approver', message: refusal } } : { ok: true, value: undefined });
  });

  it('an escalation answered with no action named is asked as a retry', async () => {
    expect(spoken(await checkResolver({ userId: 'UONCALL', policy: { gate: gate(), run: run() } }))).toEqual({ ok: true, value: undefined });
    expect(spoken(await checkResolver({ userId: 'UREQ', policy: { gate: gate(), run: run() } }))).toMatchObject({ ok: false });
  });

  it.each([
    ['ULEAD', undefined],
    ['UREQ', 'Saving this run as a runbook needs a member of @leads (rule `leads-save`).'],
  ] as const)('a runbook saved by %s', async (userId, refusal) => {
    const result = spoken(await checkRunbookSaver({ userId, policy: { gate: gate(), run: run() } }));
    expect(result).toEqual(refusal ? { ok: false, error: { code: 'not-approver', message: refusal } } : { ok: true, value: undefined });
  });

  it.each([
    ['UMAKER', undefined],
    ['ULEAD', 'Removing this schedule needs the person who made it (rule `makers-remove`).'],
  ] as const)('a schedule removed by %s', async (userId, refusal) => {
    const policy = { gate: gate(), schedule: { id: 'sch_1', channel: 'C_ENG', createdBy: 'UMAKER' } };
    const result = spoken(await checkScheduleRemover({ userId, policy }));
    expect(result).toEqual(refusal ? { ok: false, error: { code: 'not-maker-or-approver', message: refusal } } : { ok: true, value: undefined });
  });
});

describe('confirming a target under a policy', () => {
  it.each([
    ['get', 'read', 'UENG', undefined],
    ['merge', 'destructive', 'UOWN1', undefined],
    ['get', 'read', 'UOTHER', 'Confirming what this step acts on needs a member of @eng (rule `reads`).'],
    ['merge', 'destructive', 'UENG', 'Merging needs two members of @owners (rule `merges`).'],
    ['merge', 'destructive', 'UREQ', 'Merging your own request: it needs someone other than the person who asked (rule `no-self-merge`).'],
  ] as const)('a %s step (%s) confirmed by %s', async (tool, risk, userId, refusal) => {
    const policy = { gate: gate(), run: run(), step: { id: 's2', tool, args: { repo: 'acme/api', number: 7 }, rollback: false } };
    const result = spoken(await checkConfirmer({ risk, userId, policy }));
    // A permitted Confirm carries the policy that permitted it, which its event records for the audit.
    expect(result).toEqual(refusal ? { ok: false, error: { code: 'not-approver', message: refusal } } : { ok: true, value: GRANT });
  });
});

describe('approving a plan version under a policy', () => {
  const approve = (userId: string, tools: string[], earlier: ApprovalRecord[] = []) =>
    checkPolicyApprover({ gate: gate(), userId, run: run(), version: versionOf(tools), digest: 'd1', riskOf, earlier }).then(spoken);

  it('approves a read-only version with one permitted click, naming the rule and the policy', async () => {
    const result = await approve('UENG', ['get', 'get']);
    expect(result).toMatchObject({ ok: true, value: { approved: true, policyHash: gate().current().hash, rules: ['reads'] } });
  });

  it('counts a first owner on a merge, approves with the second, and never counts a person twice', async () => {
    const first = await approve('UOWN1', ['get', 'merge']);
    expect(first).toMatchObject({ ok: true, value: { approved: false, rules: ['reads', 'merges'] } });
    const second = await approve('UOWN2', ['get', 'merge'], [approval('UOWN1')]);
    expect(second).toMatchObject({ ok: true, value: { approved: true, rules: ['merges'] } });
    expect(await approve('UOWN1', ['get', 'merge'], [approval('UOWN1')])).toEqual({
      ok: false,
      error: {
        code: 'policy-refused',
        message: 'You already approved v1; it still waits for someone else: step 2 (“t”) needs two members of @owners (1 of 2 approvals).',
      },
    });
  });

  it('counts a click for the steps it may approve when no rule forbids it the others: an engineer on a read and a merge', async () => {
    expect(await approve('UENG', ['get', 'merge'])).toMatchObject({ ok: true, value: { approved: false, rules: ['reads'] } });
  });

  it('ignores approvals of another version, a rejection and an auto-run when counting the others', async () => {
    const earlier = [approval('UOWN1', { planVersion: 2 }), approval('UOWN2', { decision: 'rejected' }), approval('tandem:auto', { via: 'auto' })];
    expect(await approve('UOWN1', ['merge'], earlier)).toMatchObject({ ok: true, value: { approved: false } });
  });

  it.each([
    ['a stranger', 'UOTHER', ['get', 'merge'], 'Approving step 1 (“t”) needs a member of @eng (rule `reads`).'],
    ['an engineer on a merge', 'UENG', ['merge'], 'Merging needs two members of @owners (rule `merges`).'],
    [
      'the requester on their own merge',
      'UREQ',
      ['merge'],
      'Merging your own request: it needs someone other than the person who asked (rule `no-self-merge`).',
    ],
    ['anyone on an empty plan', 'UENG', [], 'This plan has no steps to approve.'],
    // A forbid rule on one step refuses the whole click, though the policy permits them the other step.
    [
      'the requester on a read and their own merge',
      'UREQ',
      ['get', 'merge'],
      'Merging your own request: it needs someone other than the person who asked (rule `no-self-merge`).',
    ],
  ] as const)('refuses %s with the rule in words', async (_who, userId, tools, message) => {
    expect(await approve(userId, [...tools])).toEqual({ ok: false, error: { code: 'policy-refused', message } });
  });

  it('lists who can approve each step for the plan message', () => {
    expect(approvalProgressLines(gate(), run(), versionOf(['get', 'merge', 'mystery']), 'd1', riskOf)).toEqual([
      'step 1 (“t”) needs a member of @eng',
      'step 2 (“t”) needs two members of @owners (0 of 2 approvals)',
      'step 3 (“t”): no rule permits anyone to approve it',
    ]);
  });
});

describe('whether recorded approvals let a version run under a policy', () => {
  const check = (approvals: ApprovalRecord[], tools = ['get', 'merge'], channel = 'C_ENG') =>
    policyVersionApproved({ gate: gate(), run: run(channel), version: versionOf(tools), digest: 'd1', riskOf, approvals });

  it.each([
    ['nothing recorded', [], { ok: false, error: { code: 'no-approval', message: 'no approval of v1 is recorded' } }],
    [
      'approvals of the content before an edit only',
      [approval('UOWN1', { digest: 'd0' }), approval('UOWN2', { digest: 'd0' })],
      {
        ok: false,
        error: {
          code: 'content-changed',
          message:
            'v1 was approved by UOWN1 with digest d0, but its stored content now has digest d1; v1 was approved by UOWN2 with digest d0, but its stored content now has digest d1',
        },
      },
    ],
    [
      'approvals of another version only',
      [approval('UOWN1', { planVersion: 2 })],
      { ok: false, error: { code: 'no-approval', message: 'no approval of v1 is recorded' } },
    ],
    ['one owner', [approval('UOWN1')], { ok: false, error: { code: 'none-covers', message: 'step 2 (“t”) needs two members of @owners (1 of 2 approvals)' } }],
    [
      'one owner twice',
      [approval('UOWN1'), approval('UOWN1', { digest: 'd1' })],
      { ok: false, error: { code: 'none-covers', message: 'step 2 (“t”) needs two members of @owners (1 of 2 approvals)' } },
    ],
    ['two owners, one of them before the digest was kept', [approval('UOWN1'), approval('UOWN2', { digest: 'd1' })], { ok: true, value: undefined }],
    [
      'a stranger',
      [approval('UOTHER')],
      {
        ok: false,
        error: { code: 'none-covers', message: 'step 1 (“t”) needs a member of @eng; step 2 (“t”) needs two members of @owners (0 of 2 approvals)' },
      },
    ],
  ] as const)('%s', async (_name, approvals, expected) => {
    expect(await check([...approvals])).toEqual(expected);
  });

  it('takes an auto-run of a version with a write only where auto_run is permitted on every step', async () => {
    const auto = approval('tandem:auto', { via: 'auto' });
    expect(await check([auto], ['get'], 'C_OPS')).toEqual({ ok: true, value: undefined });
    // A read-only version stands on an auto-run anywhere (a replan without writes, a runbook's read-only steps).
    expect(await check([auto], ['get'], 'C_ENG')).toEqual({ ok: true, value: undefined });
    expect(await check([auto], ['get', 'merge'], 'C_OPS')).toMatchObject({ ok: false, error: { code: 'none-covers' } });
  });

  it.each([
    ['C_OPS', ['get', 'get'], true],
    ['C_OPS', ['get', 'merge'], false],
    ['C_ENG', ['get'], false],
    ['C_OPS', [], true],
  ] as const)('auto-run in %s of %j: %s', async (channel, tools, allowed) => {
    expect(await policyAllowsAutoRun({ gate: gate(), run: run(channel), version: versionOf([...tools]), digest: 'd1', riskOf })).toBe(allowed);
  });
});
