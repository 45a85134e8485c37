import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkRunbookSaver, checkScheduleRemover } from '../../src/agent/decisions/approval-policy.ts';
import { policyRefusal, progressLines, versionProgress, type Approver } from '../../src/agent/decisions/policy-approval.ts';
import type { PolicyStep } from '../../src/agent/ports/policy.ts';
import { builtinPolicy } from '../../src/policy/builtin-policy.ts';
import { loadPolicy } from '../../src/policy/cedar-engine.ts';

const FILE = 'docs/policy/examples/per-team-repositories.cedar';
const loaded = loadPolicy([{ file: FILE, text: readFileSync(FILE, 'utf8') }]);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
const engine = loaded.value;

const step = (id: string, tool: string, risk: PolicyStep['risk'], repository: string, rollback = false): PolicyStep => ({
  id,
  tool,
  risk,
  repository,
  channel: 'C1',
  target: '7',
  rollback,
});
const merge = step('s2', 'github_merge_pull', 'destructive', 'acme/api');
const comment = step('s1', 'github_comment', 'write', 'acme/api');
const situation = { requester: 'U_DEV', channel: 'C1' };
/** The plan the steps come from, as the plan message numbers and titles them. */
const planned = {
  steps: [
    { id: 's1', title: 'Comment on the pull request', tool: 'github_comment', args: {}, dependsOn: [] },
    { id: 's2', title: 'Merge it', tool: 'github_merge_pull', args: {}, dependsOn: [] },
  ],
  rollback: [{ id: 'r1', title: 'Say it was undone', tool: 'github_comment', args: {} }],
};
const lines = (progress: { steps: Parameters<typeof progressLines>[1] }) => progressLines(planned, progress.steps);
const owner = (userId: string): Approver => ({ userId, groups: ['S_API_OWNERS'] });

describe('a plan version under a policy', () => {
  it('is approved only when every step has what its rule needs: a merge into acme/api shows 1 of 2, then is approved by a second owner', () => {
    const none = versionProgress(engine, [comment, merge], situation, []);
    expect(none.approved).toBe(false);
    expect(lines(none)).toEqual([
      'step 1 (“Comment on the pull request”) needs a member of @api-owners',
      'step 2 (“Merge it”) needs two members of @api-owners (0 of 2 approvals)',
    ]);

    const one = versionProgress(engine, [comment, merge], situation, [owner('U_ANA')]);
    expect(one.approved).toBe(false);
    expect(lines(one)).toEqual([
      'step 1 (“Comment on the pull request”): approved (rule `api-changes`)',
      'step 2 (“Merge it”) needs two members of @api-owners (1 of 2 approvals)',
    ]);

    const sameTwice = versionProgress(engine, [comment, merge], situation, [owner('U_ANA'), owner('U_ANA')]);
    expect(sameTwice.approved).toBe(false);

    const two = versionProgress(engine, [comment, merge], situation, [owner('U_ANA'), owner('U_BO')]);
    expect(two).toMatchObject({ approved: true, rules: ['api-changes', 'api-merges'] });
  });

  it('counts rollback steps: a version whose rollback touches a repository its approvers may not approve is not approved', () => {
    const undo = step('r1', 'github_comment', 'write', 'acme/web', true);
    const progress = versionProgress(engine, [comment, undo], situation, [owner('U_ANA')]);
    expect(progress.approved).toBe(false);
    expect(lines(progress)).toEqual([
      'step 1 (“Comment on the pull request”): approved (rule `api-changes`)',
      'rollback step 1 (“Say it was undone”) needs a member of @web-team',
    ]);
  });

  it("refuses with the rule's own words and id, never a setting name", () => {
    const question = { action: 'approve' as const, resource: { kind: 'step' as const, step: merge }, situation };
    expect(policyRefusal(engine, question, [], 'approving step s2')).toBe('Merging into acme/api needs two members of @api-owners (rule `api-merges`).');
    const builtin = loadPolicy([builtinPolicy({ approvers: ['U1'], autoRunReadOnly: false, repos: undefined })]);
    if (!builtin.ok) throw new Error('built-in policy did not load');
    const own = { ...question, situation: { requester: 'U1', channel: 'C1' } };
    const decided = builtin.value.decide({ ...own, user: 'U1', groups: [] });
    expect(policyRefusal(builtin.value, own, decided.rules, 'approving step s2')).toBe(
      'This step is destructive: it needs an approver other than the person who asked (rule `four-eyes`).',
    );
    const nobody = { ...question, resource: { kind: 'step' as const, step: step('s9', 'github_comment', 'write', 'other/x') } };
    expect(policyRefusal(engine, nobody, [], 'approving step s9')).toBe('Approving step s9 is not permitted to anyone by the policy in force.');
  });
});

describe('saving a runbook and removing a schedule under a policy', () => {
  const rules = loadPolicy([
    {
      file: 'p.cedar',
      text: `@id("leads-save") @who("a member of @leads")
permit (principal in Group::"S_LEADS", action == Action::"save_runbook", resource is Run);

@id("makers-remove") @who("the person who made it")
permit (principal, action == Action::"cancel", resource is Schedule) when { principal == resource.createdBy };
`,
    },
  ]);
  if (!rules.ok) throw new Error(JSON.stringify(rules.error));
  const gate = { current: () => rules.value, groups: { groupsOf: async (user: string, among: readonly string[]) => (user === 'U_LEAD' ? among : []) } };
  const run = { id: 'r1', requester: 'U_DEV', conversation: { channel: 'C1', threadTs: 't' } };

  it('asks the policy, not the approver list, and names the rule when it refuses', async () => {
    expect(await checkRunbookSaver({ userId: 'U_LEAD', policy: { gate, run } })).toEqual({ ok: true, value: undefined });
    expect(await checkRunbookSaver({ userId: 'U_DEV', policy: { gate, run } })).toEqual({
      ok: false,
      error: { code: 'not-approver', message: 'Saving this run as a runbook needs a member of @leads (rule `leads-save`).' },
    });
    const schedule = { id: 'sc1', channel: 'C1', createdBy: 'U_DEV' };
    expect(await checkScheduleRemover({ userId: 'U_DEV', policy: { gate, schedule } })).toEqual({
      ok: true,
      value: undefined,
    });
    expect(await checkScheduleRemover({ userId: 'U_LEAD', policy: { gate, schedule } })).toEqual({
      ok: false,
      error: { code: 'not-maker-or-approver', message: 'Removing this schedule needs the person who made it (rule `makers-remove`).' },
    });
  });
});
