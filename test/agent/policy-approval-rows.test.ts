/**
 * Rows for the parts of policy-approval.ts a plan of the example policy never reaches (decision 027): how a
 * step's args become the policy's `Step`, which rule a step waiting for approvals names, a forbid rule among the
 * approvers, confirm instead of approve, and the exact words of each refusal and progress line.
 */
import { describe, expect, it } from 'vitest';
import {
  askPolicy,
  policyRefusal,
  policyStep,
  policySteps,
  progressLines,
  versionProgress,
  type Approver,
  type StepProgress,
} from '../../src/agent/decisions/policy-approval.ts';
import type { Plan, PlanStep } from '../../src/agent/model/plan/plan.ts';
import type { PolicyEngine, PolicyStep } from '../../src/agent/ports/policy.ts';
import type { Risk } from '../../src/agent/ports/tool.ts';
import { loadPolicy } from '../../src/policy/cedar-engine.ts';

function policy(text: string): PolicyEngine {
  const loaded = loadPolicy([{ file: 'rows.cedar', text }]);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  return loaded.value;
}

const situation = { requester: 'U_DEV', channel: 'C1' };
const step = (id: string, over: Partial<PolicyStep> = {}): PolicyStep => ({
  id,
  tool: 'github_comment',
  risk: 'write',
  repository: 'acme/api',
  channel: 'C1',
  target: '7',
  rollback: false,
  ...over,
});
const member = (userId: string, ...groups: string[]): Approver => ({ userId, groups });
/** The plan the steps come from, as its message numbers and titles them: s1 and s3 are steps 1 and 2, r1 the first undo. */
const oneStep = {
  steps: [
    { id: 's1', title: 'Check it', tool: 'github_comment', args: {}, dependsOn: [] },
    { id: 's3', title: 'Merge it', tool: 'github_merge_pull', args: {}, dependsOn: [] },
  ],
  rollback: [{ id: 'r1', title: 'Undo it', tool: 'github_comment', args: {} }],
};
const progressLine = (progress: StepProgress) => progressLines(oneStep, [progress])[0];

describe('a plan step as the policy sees it', () => {
  const of = (args: Record<string, unknown>, risk: Risk | undefined) =>
    policyStep({ id: 's1', tool: 'github_comment', args } as Pick<PlanStep, 'id' | 'tool' | 'args'>, risk, 'C7', false);

  it('keeps the id, tool and channel, lowers the repository and names the target', () => {
    expect(of({ repo: 'Acme/API', number: 7 }, 'write')).toEqual({
      id: 's1',
      tool: 'github_comment',
      risk: 'write',
      repository: 'acme/api',
      channel: 'C7',
      target: '7',
      rollback: false,
    });
  });

  it.each<[Risk | undefined, Risk]>([
    ['read', 'read'],
    ['write', 'write'],
    ['destructive', 'destructive'],
    [undefined, 'destructive'],
  ])('a tool of risk %s counts as %s', (risk, counted) => {
    expect(of({}, risk).risk).toBe(counted);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ number: 7, tag: 'v1', ref: 'main', workflow: 'ci.yml', channel: 'C9', runId: 'r1' }, '7'],
    [{ tag: 'v1', ref: 'main', workflow: 'ci.yml', channel: 'C9', runId: 'r1' }, 'v1'],
    [{ ref: 'main', workflow: 'ci.yml', channel: 'C9', runId: 'r1' }, 'main'],
    [{ workflow: 'ci.yml', channel: 'C9', runId: 'r1' }, 'ci.yml'],
    [{ channel: 'C9', runId: 'r1' }, 'C9'],
    [{ runId: 'r1' }, 'r1'],
    [{}, ''],
    [{ number: 0 }, '0'],
    [{ number: '{{s0.output.number}}', tag: 'v1' }, 'v1'],
    [{ number: true, tag: '', ref: ['main'], runId: 'r1' }, 'r1'],
    [{ number: { n: 7 } }, ''],
  ])('the target of %j is %j (the first known of number, tag, ref, workflow, channel, runId)', (args, target) => {
    expect(of(args, 'write').target).toBe(target);
  });

  it.each<[unknown, string]>([
    ['acme/api', 'acme/api'],
    ['{{s0.output.repo}}', ''],
    [undefined, ''],
    [['acme/api'], ''],
  ])('the repository of repo %j is %j (one still waiting for an earlier output is not known yet)', (repo, repository) => {
    expect(of({ repo }, 'write').repository).toBe(repository);
  });

  it('lists the forward steps, then the rollback steps marked so, each with its tool’s risk', () => {
    const plan = {
      steps: [
        { id: 's1', tool: 'read_thing', args: {}, dependsOn: [] },
        { id: 's2', tool: 'merge_thing', args: { repo: 'acme/api', number: 7 }, dependsOn: ['s1'] },
      ],
      rollback: [{ id: 'r1', tool: 'unknown_thing', args: { tag: 'v2' }, dependsOn: [], undoes: 's2' }],
    } as unknown as Plan;
    const risks: Record<string, Risk> = { read_thing: 'read', merge_thing: 'destructive' };
    expect(policySteps(plan, (tool) => risks[tool], 'C1').map(({ id, risk, rollback, target }) => ({ id, risk, rollback, target }))).toEqual([
      { id: 's1', risk: 'read', rollback: false, target: '' },
      { id: 's2', risk: 'destructive', rollback: false, target: '7' },
      { id: 'r1', risk: 'destructive', rollback: true, target: 'v2' },
    ]);
  });
});

describe('progress of a version towards approval', () => {
  // Two rules could permit the same step: one takes one lead, the other two owners.
  const LEADS = `@id("leads") @who("a member of @leads") @reason("Changing acme/api")
permit (principal in Group::"S_LEADS", action == Action::"approve", resource is Step);`;
  const OWNERS = `@id("owners") @who("two members of @owners") @approvals("2")
permit (principal in Group::"S_OWNERS", action == Action::"approve", resource is Step);`;

  it.each([
    ['leads first', `${LEADS}\n${OWNERS}`],
    ['owners first', `${OWNERS}\n${LEADS}`],
  ])('with nobody yet, a step names the rule needing fewest approvals (%s in the file)', (_, text) => {
    const progress = versionProgress(policy(text), [step('s1')], situation, []);
    expect(progress.steps).toEqual<StepProgress[]>([
      { stepId: 's1', rollback: false, rule: expect.objectContaining({ id: 'leads' }), have: 0, need: 1, done: false, permittedBy: [] },
    ]);
    expect(progressLines(oneStep, progress.steps)).toEqual(['step 1 (“Check it”) needs a member of @leads']);
  });

  it.each([
    ['leads first', `${LEADS}\n${OWNERS}`],
    ['owners first', `${OWNERS}\n${LEADS}`],
  ])('with one owner, the step names the owners’ rule, half done (%s in the file)', (_, text) => {
    const progress = versionProgress(policy(text), [step('s1')], situation, [member('U_O1', 'S_OWNERS')]);
    expect(progress).toEqual({
      approved: false,
      steps: [{ stepId: 's1', rollback: false, rule: expect.objectContaining({ id: 'owners' }), have: 1, need: 2, done: false, permittedBy: [] }],
      rules: [],
    });
    expect(progressLines(oneStep, progress.steps)).toEqual(['step 1 (“Check it”) needs two members of @owners (1 of 2 approvals)']);
  });

  // One approver of both: one of two approvals is nearer to done than one of three, though three is more people.
  const PAIR = `@id("pair") @who("two members of @pair") @approvals("2")
permit (principal in Group::"S_PAIR", action == Action::"approve", resource is Step);`;
  const BOARD = `@id("board") @who("three members of @board") @approvals("3")
permit (principal in Group::"S_BOARD", action == Action::"approve", resource is Step);`;
  it.each([
    ['pair first', `${PAIR}\n${BOARD}`],
    ['board first', `${BOARD}\n${PAIR}`],
  ])('a step names the rule nearest to done as a share of what it needs (%s in the file)', (_, text) => {
    const progress = versionProgress(policy(text), [step('s1')], situation, [member('U_1', 'S_PAIR', 'S_BOARD')]);
    expect(progressLines(oneStep, progress.steps)).toEqual(['step 1 (“Check it”) needs two members of @pair (1 of 2 approvals)']);
  });

  it('a step two rules permit is approved by both; a rule permitting two steps is recorded once', () => {
    const engine = policy(`${LEADS}\n${OWNERS}`);
    const approvers = [member('U_O1', 'S_OWNERS', 'S_LEADS'), member('U_O2', 'S_OWNERS')];
    const progress = versionProgress(engine, [step('s1'), step('r1', { rollback: true })], situation, approvers);
    expect(progress).toEqual({
      approved: true,
      steps: [
        { stepId: 's1', rollback: false, rule: expect.objectContaining({ id: 'leads' }), have: 1, need: 1, done: true, permittedBy: ['leads', 'owners'] },
        { stepId: 'r1', rollback: true, rule: expect.objectContaining({ id: 'leads' }), have: 1, need: 1, done: true, permittedBy: ['leads', 'owners'] },
      ],
      rules: ['leads', 'owners'],
    });
    expect(progressLine(progress.steps[0]!)).toBe('step 1 (“Check it”): approved (rule `leads`, `owners`)');
  });

  it('a rule of two approvals, once done, says two of two', () => {
    const progress = versionProgress(policy(OWNERS), [step('s1')], situation, [member('U_O1', 'S_OWNERS'), member('U_O2', 'S_OWNERS')]);
    expect(progress.steps).toEqual([
      { stepId: 's1', rollback: false, rule: expect.objectContaining({ id: 'owners' }), have: 2, need: 2, done: true, permittedBy: ['owners'] },
    ]);
  });

  it('a step no rule could permit says so, and the version is not approved', () => {
    const progress = versionProgress(policy(LEADS), [step('s1', { tool: 'x' })], situation, [member('U_O1', 'S_OWNERS')], 'confirm');
    expect(progress).toEqual({
      approved: false,
      steps: [{ stepId: 's1', rollback: false, rule: undefined, have: 0, need: 1, done: false, permittedBy: [] }],
      rules: [],
    });
    expect(progressLine(progress.steps[0]!)).toBe('step 1 (“Check it”): no rule permits anyone to approve it');
  });

  it('a forbid rule that matches an approver counts nothing for them, not even as a rule that permits', () => {
    const engine = policy(`${LEADS}
@id("not-yours") @who("someone other than the person who asked")
forbid (principal, action == Action::"approve", resource is Step) when { principal == context.requester };`);
    const progress = versionProgress(engine, [step('s1')], situation, [member('U_DEV', 'S_LEADS')]);
    expect(progress).toMatchObject({ approved: false, rules: [], steps: [{ done: false, have: 0, permittedBy: [] }] });
    expect(versionProgress(engine, [step('s1')], situation, [member('U_LEAD', 'S_LEADS')]).approved).toBe(true);
  });

  it('asks about the action it is given: a confirm rule approves nothing, and confirms', () => {
    const engine = policy(`@id("confirmers") @who("a member of @ops")
permit (principal in Group::"S_OPS", action == Action::"confirm", resource is Step);`);
    const ops = [member('U_OPS', 'S_OPS')];
    expect(versionProgress(engine, [step('s1')], situation, ops).approved).toBe(false);
    expect(versionProgress(engine, [step('s1')], situation, ops, 'confirm')).toMatchObject({ approved: true, rules: ['confirmers'] });
  });
});

describe('asking the policy in force', () => {
  const question = { user: 'U_LEAD', action: 'approve' as const, resource: { kind: 'step' as const, step: step('s1') }, situation };

  it('looks up only the groups the policy names, and decides with them', async () => {
    const engine = policy(`@id("leads") @who("a member of @leads")
permit (principal in Group::"S_LEADS", action == Action::"approve", resource is Step);`);
    const asked: (readonly string[])[] = [];
    const gate = { current: () => engine, groups: { groupsOf: async (_: string, among: readonly string[]) => (asked.push(among), among) } };
    expect(await askPolicy(gate, question)).toEqual({ engine, groups: ['S_LEADS'], decision: { permitted: true, rules: ['leads'], errors: [] } });
    expect(asked).toEqual([['S_LEADS']]);
  });

  it('a policy that names no group asks the directory nothing', async () => {
    const engine = policy(`@id("all") @who("anyone")
permit (principal, action == Action::"approve", resource is Step);`);
    const gate = {
      current: () => engine,
      groups: {
        groupsOf: async (): Promise<readonly string[]> => {
          throw new Error('the directory was asked');
        },
      },
    };
    expect(await askPolicy(gate, question)).toEqual({ engine, groups: [], decision: { permitted: true, rules: ['all'], errors: [] } });
  });
});

describe('the words of a refusal under a policy', () => {
  const engine = policy(`@id("leads") @who("a member of @leads") @reason("Changing acme/api")
permit (principal in Group::"S_LEADS", action == Action::"approve", resource is Step) when { resource.repository == "acme/api" };

@id("owners") @who("a member of @owners")
permit (principal in Group::"S_OWNERS", action == Action::"approve", resource is Step) when { resource.repository == "acme/api" };

@id("freeze") @who("nobody during the freeze") @reason("Nothing ships this week")
forbid (principal, action == Action::"approve", resource is Step) when { resource.tool == "deploy" };

@id("no-self") @who("someone other than the person who asked")
forbid (principal, action == Action::"approve", resource is Step) when { principal == context.requester };`);
  const about = (over: Partial<PolicyStep> = {}) => ({ action: 'approve' as const, resource: { kind: 'step' as const, step: step('s1', over) }, situation });

  it.each<[string, string[], string]>([
    ['a forbid rule with a reason gives it', ['freeze'], 'Nothing ships this week: it needs nobody during the freeze (rule `freeze`).'],
    ['one without gives what was refused', ['no-self'], 'Approving step s1: it needs someone other than the person who asked (rule `no-self`).'],
    [
      'the first forbid rule named, past permit rules and unknown ids',
      ['leads', 'gone', 'no-self', 'freeze'],
      'Approving step s1: it needs someone other than the person who asked (rule `no-self`).',
    ],
    [
      'no forbid rule: every rule that could permit',
      ['leads'],
      'Changing acme/api needs a member of @leads (rule `leads`); or Approving step s1 needs a member of @owners (rule `owners`).',
    ],
  ])('%s', (_, forbidding, words) => {
    expect(policyRefusal(engine, about(), forbidding, 'approving step s1')).toBe(words);
  });

  it('a step no rule could permit is not permitted to anyone', () => {
    expect(policyRefusal(engine, about({ repository: 'acme/web' }), [], 'approving step s1')).toBe(
      'Approving step s1 is not permitted to anyone by the policy in force.',
    );
  });
});

describe('a progress line', () => {
  const waiting = (over: Partial<StepProgress>): StepProgress => ({
    stepId: 's3',
    rollback: false,
    rule: { id: 'owners', effect: 'permit', approvals: 2, who: 'two members of @owners', reason: undefined, file: 'p.cedar', line: 1 },
    have: 0,
    need: 2,
    done: false,
    permittedBy: [],
    ...over,
  });

  it.each<[Partial<StepProgress>, string]>([
    [{}, 'step 2 (“Merge it”) needs two members of @owners (0 of 2 approvals)'],
    [{ have: 1 }, 'step 2 (“Merge it”) needs two members of @owners (1 of 2 approvals)'],
    [{ need: 1, rule: { ...waiting({}).rule!, approvals: 1, who: 'a member of @owners' } }, 'step 2 (“Merge it”) needs a member of @owners'],
    [{ rule: undefined }, 'step 2 (“Merge it”): no rule permits anyone to approve it'],
    [{ done: true, permittedBy: ['owners'] }, 'step 2 (“Merge it”): approved (rule `owners`)'],
    [{ stepId: 'r1', rollback: true }, 'rollback step 1 (“Undo it”) needs two members of @owners (0 of 2 approvals)'],
  ])('%j reads %j', (over, line) => {
    expect(progressLine(waiting(over))).toBe(line);
  });
});
