/**
 * The rows the mutation run of the approval policy found missing (docs/mutation-survivors.md): a policy that
 * names no group (the directory is never asked), refusals in a rule's words when the rule gives no reason,
 * a confirm asked of a forward step, and the approvals of a version counted exactly — another person's
 * approval of another version, the clicker's own earlier one, a stale digest next to a fresh one, an auto-run
 * next to a person's approval.
 */
import { describe, expect, it } from 'vitest';
import { checkConfirmer, checkPolicyApprover, checkResolver, policyAllowsAutoRun, policyVersionApproved } from '../../src/agent/decisions/approval-policy.ts';
import type { PolicyGate } from '../../src/agent/decisions/policy-approval.ts';
import { PlanSchema } from '../../src/agent/model/plan/plan.ts';
import type { ApprovalRecord } from '../../src/agent/ports/plans.ts';
import type { Risk } from '../../src/agent/ports/tool.ts';
import { loadPolicy } from '../../src/policy/cedar-engine.ts';
import { spoken } from './support/spoken.ts';
import { approversGate } from '../helpers/policy-gate.ts';

/** Names no group, so nobody's groups are ever looked up. */
const GROUP_FREE = `
@id("anyone-writes")
permit (principal, action == Action::"approve", resource is Step)
when { resource.risk == "write" };

@id("lead-resolves")
permit (principal == User::"ULEAD", action in [Action::"retry", Action::"skip"], resource is Run)
when { context.escalated };

@id("lead-confirms-forward")
permit (principal == User::"ULEAD", action == Action::"confirm", resource is Step)
when { !resource.rollback };

@id("requester-auto-reads")
permit (principal, action == Action::"auto_run", resource is Step)
when { resource.risk == "read" && principal == context.requester };
`;

/** Two owners for a merge, an engineer for a read (as in approval-policy-under-policy.test.ts). */
const OWNERS = `
@id("reads") @who("a member of @eng")
permit (principal in Group::"S_ENG", action == Action::"approve", resource is Step)
when { resource.risk == "read" };

@id("merges") @who("two members of @owners") @reason("Merging") @approvals("2")
permit (principal in Group::"S_OWNERS", action == Action::"approve", resource is Step)
when { resource.tool == "merge" };
`;

const MEMBERS: Record<string, string[]> = { S_ENG: ['UENG', 'UOWN1', 'UOWN2', 'UOWN3'], S_OWNERS: ['UOWN1', 'UOWN2', 'UOWN3'] };

function gateOf(text: string): PolicyGate {
  const loaded = loadPolicy([{ file: 'test.cedar', text }]);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  const groupsOf = async (userId: string, among: readonly string[]) => {
    if (among.length === 0) throw new Error(`asked for the groups of ${userId} though the policy names none`);
    return among.filter((group) => MEMBERS[group]?.includes(userId));
  };
  return { current: () => loaded.value, groups: { groupsOf } };
}
const groupFree = gateOf(GROUP_FREE);
const owners = gateOf(OWNERS);

const run = { id: 'run_1', requester: 'UREQ', conversation: { channel: 'C_ENG', threadTs: '1.1' } };
const risks: Record<string, Risk> = { get: 'read', put: 'write', merge: 'destructive' };
const riskOf = (tool: string) => risks[tool];
const versionOf = (tools: string[]) => ({
  version: 1,
  plan: PlanSchema.parse({ goal: 'g', confidence: 0.9, steps: tools.map((tool, i) => ({ id: `s${i + 1}`, title: 't', tool })), rollback: [] }),
});
const approval = (userId: string, extra: Partial<ApprovalRecord> = {}): ApprovalRecord =>
  ({ runId: 'run_1', planVersion: 1, userId, decision: 'approved', via: 'click', digest: null, policyHash: 'p1', ...extra }) as ApprovalRecord;
// Recorded under a policy, with its hash: only its being an auto-run keeps it from counting as a person.
const AUTO = approval('tandem:auto', { via: 'auto' });

const GRANT = { hash: expect.stringMatching(/^[0-9a-f]{64}$/) as string, rules: [expect.any(String) as string], groups: expect.any(Array) as string[] };

describe('a policy that names no group', () => {
  it.each([
    ['retry', 'ULEAD', undefined],
    ['retry', 'UREQ', 'Answering this escalation with retry needs user ULEAD (rule `lead-resolves`).'],
    ['skip', 'UREQ', 'Answering this escalation with skip needs user ULEAD (rule `lead-resolves`).'],
    ['abort', 'ULEAD', 'Answering this escalation with abort is not permitted to anyone by the policy in force.'],
  ] as const)('an escalation answered with %s by %s', async (action, userId, refusal) => {
    const result = spoken(await checkResolver({ userId, action, policy: { gate: groupFree, run } }));
    expect(result).toEqual(refusal ? { ok: false, error: { code: 'not-approver', message: refusal } } : { ok: true, value: undefined });
  });

  it.each([
    ['ULEAD', undefined, false],
    ['UREQ', 'Confirming what this step acts on needs user ULEAD (rule `lead-confirms-forward`).', false],
    // A rollback step's Confirm is asked as a rollback step: a rule for forward steps does not reach it.
    ['ULEAD', 'Confirming what this step acts on is not permitted to anyone by the policy in force.', true],
  ] as const)('a step confirmed by %s (rollback: %s)', async (userId, refusal, rollback) => {
    const policy = { gate: groupFree, run, step: { id: rollback ? 'r1' : 's3', tool: 'put', args: { repo: 'acme/api' }, rollback } };
    const result = spoken(await checkConfirmer({ risk: 'write', userId, policy }));
    // A permitted Confirm carries the policy that permitted it, which its event records for the audit.
    expect(result).toEqual(refusal ? { ok: false, error: { code: 'not-approver', message: refusal } } : { ok: true, value: GRANT });
  });

  it('an approval click counts the clicker with no groups', async () => {
    const result = await checkPolicyApprover({
      gate: groupFree,
      userId: 'UANY',
      run,
      version: versionOf(['put']),
      digest: 'd1',
      riskOf,
      earlier: [],
    });
    expect(result).toMatchObject({ ok: true, value: { approved: true, rules: ['anyone-writes'], groups: [] } });
  });

  it.each([
    [['get'], true],
    [['get', 'put'], false],
  ] as const)('the requester auto-runs %j: %s', async (tools, allowed) => {
    expect(await policyAllowsAutoRun({ gate: groupFree, run, version: versionOf([...tools]), digest: 'd1', riskOf })).toBe(allowed);
  });

  it.each([
    ['a person', [approval('UANY')], { ok: true, value: undefined }],
    // The auto-run is no person: a write step needs one.
    ['an auto-run only', [AUTO], { ok: false, error: { code: 'none-covers', message: 'step 1 (“t”) needs anyone the rule allows' } }],
  ] as const)('a version with a write step recorded as approved by %s', async (_name, approvals, expected) => {
    expect(await policyVersionApproved({ gate: groupFree, run, version: versionOf(['put']), digest: 'd1', riskOf, approvals: [...approvals] })).toEqual(
      expected,
    );
  });
});

describe('an approval click counts exactly the approvals of this version', () => {
  const click = (userId: string, tools: string[], earlier: ApprovalRecord[]) =>
    checkPolicyApprover({ gate: owners, userId, run, version: versionOf(tools), digest: 'd1', riskOf, earlier }).then(spoken);

  it.each([
    ['another owner approved this version: the merge is done', [approval('UOWN2')], { ok: true, value: expect.objectContaining({ approved: true }) }],
    [
      'another owner approved version 2 only: not yet',
      [approval('UOWN2', { planVersion: 2 })],
      { ok: true, value: expect.objectContaining({ approved: false }) },
    ],
    [
      'another owner rejected this version: not yet',
      [approval('UOWN2', { decision: 'rejected' })],
      { ok: true, value: expect.objectContaining({ approved: false }) },
    ],
    [
      'the clicker approved version 2 before: counted now',
      [approval('UOWN1', { planVersion: 2 })],
      { ok: true, value: expect.objectContaining({ approved: false }) },
    ],
    [
      'the clicker rejected this version before: counted now',
      [approval('UOWN1', { decision: 'rejected' })],
      { ok: true, value: expect.objectContaining({ approved: false }) },
    ],
  ] as const)('%s', async (_name, earlier, expected) => {
    expect(await click('UOWN1', ['merge'], [...earlier])).toEqual(expected);
  });

  it('a second click names every step still waiting, in order', async () => {
    expect(await click('UENG', ['merge', 'get', 'merge'], [approval('UENG')])).toEqual({
      ok: false,
      error: {
        code: 'policy-refused',
        message:
          'You already approved v1; it still waits for someone else: step 1 (“t”) needs two members of @owners (0 of 2 approvals); step 3 (“t”) needs two members of @owners (0 of 2 approvals).',
      },
    });
  });

  it('a refusal names the first step still waiting, not one already approved', async () => {
    expect(await click('UOTHER', ['get', 'merge'], [approval('UENG')])).toEqual({
      ok: false,
      error: { code: 'policy-refused', message: 'Merging needs two members of @owners (rule `merges`).' },
    });
  });
});

describe('whether recorded approvals let a version run: each approval for what it is', () => {
  const check = (tools: string[], approvals: ApprovalRecord[]) =>
    policyVersionApproved({ gate: owners, run, version: versionOf(tools), digest: 'd1', riskOf, approvals });

  it.each([
    [
      'two owners, one of them of the content before an edit',
      ['merge'],
      [approval('UOWN1', { digest: 'd0' }), approval('UOWN2', { digest: 'd1' })],
      { ok: false, error: { code: 'none-covers', message: 'step 1 (“t”) needs two members of @owners (1 of 2 approvals)' } },
    ],
    ['two owners of this content', ['merge'], [approval('UOWN1', { digest: 'd1' }), approval('UOWN2', { digest: 'd1' })], { ok: true, value: undefined }],
    // A read-only version stands on its auto-run, whoever else clicked.
    ['an auto-run of a read-only version next to a stranger', ['get'], [approval('UOTHER'), AUTO], { ok: true, value: undefined }],
    [
      'an auto-run of a merge next to one owner',
      ['merge'],
      [AUTO, approval('UOWN1')],
      { ok: false, error: { code: 'none-covers', message: 'step 1 (“t”) needs two members of @owners (1 of 2 approvals)' } },
    ],
  ] as const)('%s', async (_name, tools, approvals, expected) => {
    expect(await check([...tools], [...approvals])).toEqual(expected);
  });
});

describe('under the built-in policy, a step off the repository allow-list is refused in the allow-list’s words', () => {
  const builtin = approversGate(['UAPP'], { repos: ['acme/*'] });
  const offList = {
    version: 1,
    plan: PlanSchema.parse({ goal: 'g', confidence: 0.9, steps: [{ id: 's1', title: 't', tool: 'put', args: { repo: 'evil/x' } }], rollback: [] }),
  };

  it('an approver approving it', async () => {
    const result = spoken(await checkPolicyApprover({ gate: builtin, userId: 'UAPP', run, version: offList, digest: 'd1', riskOf, earlier: [] }));
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'policy-refused', message: expect.stringMatching(/^That repository is not on the allow-list: /) },
    });
  });

  it('an approver confirming it', async () => {
    const policy = { gate: builtin, run, step: { id: 's1', tool: 'put', args: { repo: 'evil/x' }, rollback: false } };
    const result = spoken(await checkConfirmer({ risk: 'write', userId: 'UAPP', policy }));
    expect(result).toMatchObject({ ok: false, error: { code: 'not-approver', message: expect.stringMatching(/^That repository is not on the allow-list: /) } });
  });
});

describe('records that do not let a version run', () => {
  const check = (tools: string[], approvals: ApprovalRecord[]) =>
    policyVersionApproved({ gate: owners, run, version: versionOf(tools), digest: 'd1', riskOf, approvals });

  it('a rejection is no approval', async () => {
    expect(await check(['get'], [approval('UENG', { decision: 'rejected' })])).toEqual({
      ok: false,
      error: { code: 'no-approval', message: 'no approval of v1 is recorded' },
    });
  });

  it('a person’s approval recorded without a policy hash counts only if it was checked for this version’s need', async () => {
    const unchecked = [approval('UOWN1', { policyHash: null, need: 'approver' }), approval('UOWN2', { policyHash: null, need: 'approver' })];
    expect(await check(['merge'], unchecked)).toMatchObject({ ok: false, error: { code: 'none-covers' } });
    const checked = unchecked.map((row) => ({ ...row, need: 'approver-not-requester' as const }));
    expect(await check(['merge'], checked)).toEqual({ ok: true, value: undefined });
  });
});
