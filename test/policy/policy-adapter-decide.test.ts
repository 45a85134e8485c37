/**
 * The policy adapter every decision goes through (src/policy/cedar-engine.ts, cedar-request.ts), as tables:
 * what a question is answered with (permitted, the rules behind it, the errors) for each attribute of the
 * person, the step, run or schedule and the situation a rule can read; who may, when nobody asked yet; what a
 * loaded policy says about itself (its hash, the groups worth looking up, its warnings).
 */
import { describe, expect, it } from 'vitest';
import { loadPolicy, policyHash } from '../../src/policy/cedar-engine.ts';
import type { PolicyAction, PolicyResource, PolicySituation, PolicyStep, PolicySource } from '../../src/agent/ports/policy.ts';
import { tandemSchema } from '../../src/policy/schema.ts';

const POLICY = `
@id("eng-reads") @who("a member of @eng")
permit (principal in Group::"S_ENG", action in [Action::"approve", Action::"confirm"], resource is Step)
when { resource.risk == "read" };

@id("no-prod") @reason("Touching prod")
forbid (principal, action == Action::"approve", resource is Step)
when { resource.repository == "acme/prod" };

@id("own-get")
permit (principal, action == Action::"approve", resource is Step)
when { principal == context.requester && resource.tool == "get" && resource.target == "7" && !resource.rollback && resource.channel == "C_OPS" };

@id("confident")
permit (principal == User::"U_BOT", action == Action::"auto_run", resource is Step)
when { context.confidence >= 90 && context.planVersion == 0 && context.digest == "" };

@id("versioned")
permit (principal == User::"U_V", action == Action::"auto_run", resource is Step)
when { context.planVersion == 3 && context.digest == "d3" && context.channel == "C_OPS" };

@id("own-runs")
permit (principal, action == Action::"cancel", resource is Run)
when { principal == resource.requester && resource.channel == "C_OPS" };

@id("makers")
permit (principal, action == Action::"cancel", resource is Schedule)
when { principal == resource.createdBy && resource.intervalSeconds >= 3600 && resource.channel == "C_OPS" };

@id("escalated")
permit (principal == User::"U_ONCALL", action == Action::"retry", resource is Run)
when { context.escalated };

@id("overflow")
permit (principal == User::"U_ODD", action == Action::"skip", resource is Run)
when { context.planVersion + 9223372036854775807 > 0 };

@id("root")
permit (principal == User::"U_ROOT", action, resource);

@id("also-eng")
permit (principal in Group::"S_ENG", action == Action::"approve", resource is Step)
when { resource.risk == "read" };

@id("both-groups")
permit (principal, action == Action::"skip", resource is Run)
when { principal in Group::"S_A" && principal in Group::"S_B" };

@id("a-not-b")
permit (principal, action == Action::"abort", resource is Run)
when { principal in Group::"S_A" && !(principal in Group::"S_B") };

@id("in-no-group")
permit (principal, action == Action::"answer", resource is Run)
when { principal == User::"U_X" && !(principal in Group::"S_A") && !(principal in Group::"S_B") };

@id("not-the-requester")
permit (principal, action == Action::"replan", resource is Run)
when { principal != context.requester };
`;

const loaded = loadPolicy([{ file: 'team.cedar', text: POLICY }]);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
const engine = loaded.value;

const STEP: PolicyStep = { id: 's1', tool: 'get', risk: 'read', repository: 'acme/api', channel: 'C_OPS', target: '7', rollback: false };
const step = (change: Partial<PolicyStep> = {}): PolicyResource => ({ kind: 'step', step: { ...STEP, ...change } });
const RUN: PolicyResource = { kind: 'run', runId: 'r1', requester: 'UREQ', channel: 'C_OPS' };
const run = (change: Partial<Extract<PolicyResource, { kind: 'run' }>> = {}): PolicyResource => ({
  ...(RUN as Extract<PolicyResource, { kind: 'run' }>),
  ...change,
});
const schedule = (change: Partial<Extract<PolicyResource, { kind: 'schedule' }>> = {}): PolicyResource => ({
  kind: 'schedule',
  scheduleId: 'sch1',
  channel: 'C_OPS',
  createdBy: 'UMAKER',
  intervalSeconds: 3600,
  ...change,
});
const SITUATION: PolicySituation = { requester: 'UREQ', channel: 'C_OPS' };
const ask = (user: string, groups: string[], action: PolicyAction, resource: PolicyResource, situation: Partial<PolicySituation> = {}) =>
  engine.decide({ user, groups, action, resource, situation: { ...SITUATION, ...situation } });

const permit = (...rules: string[]) => ({ permitted: true, rules, errors: [] });
const deny = (...rules: string[]) => ({ permitted: false, rules, errors: [] });

describe('a question and its answer', () => {
  it.each([
    ['an engineer approving a read step', ask('UENG', ['S_ENG'], 'approve', step()), permit('eng-reads', 'also-eng')],
    ['an engineer confirming a read step (a rule for two actions)', ask('UENG', ['S_ENG'], 'confirm', step()), permit('eng-reads')],
    ['an engineer approving a write step', ask('UENG', ['S_ENG'], 'approve', step({ risk: 'write', tool: 'put' })), deny()],
    ['someone in no group', ask('UENG', [], 'approve', step({ tool: 'put' })), deny()],
    ['a forbid rule wins over every permit', ask('UENG', ['S_ENG'], 'approve', step({ repository: 'acme/prod' })), deny('no-prod')],
    ['a rule for every action', ask('U_ROOT', [], 'schedule', schedule()), permit('root')],
    ['an action no rule names, for anyone else', ask('UENG', ['S_ENG'], 'schedule', schedule()), deny()],
    // The requester is the principal: one User entity, with the groups it is in.
    ['the requester, in @eng, approving a read step', ask('UREQ', ['S_ENG'], 'approve', step({ tool: 'put' })), permit('eng-reads', 'also-eng')],
    ['the requester approving get on target 7', ask('UREQ', [], 'approve', step()), permit('own-get')],
    ['… on another target', ask('UREQ', [], 'approve', step({ target: '8' })), deny()],
    ['… as a rollback step', ask('UREQ', [], 'approve', step({ rollback: true })), deny()],
    ['… in another channel', ask('UREQ', [], 'approve', step({ channel: 'C_ENG' })), deny()],
    ['… another tool', ask('UREQ', [], 'approve', step({ tool: 'put' })), deny()],
    ['someone else approving get on target 7', ask('UOTHER', [], 'approve', step()), deny()],
    ['an auto-run with no plan: confidence 100, version 0, no digest', ask('U_BOT', [], 'auto_run', step()), permit('confident')],
    ['an auto-run at 89.5 % confidence (rounded to 90)', ask('U_BOT', [], 'auto_run', step(), { confidence: 0.895 }), permit('confident')],
    ['an auto-run at 89 % confidence', ask('U_BOT', [], 'auto_run', step(), { confidence: 0.89 }), deny()],
    ['an auto-run of version 1', ask('U_BOT', [], 'auto_run', step(), { planVersion: 1 }), deny()],
    ['an auto-run with a digest', ask('U_BOT', [], 'auto_run', step(), { digest: 'd1' }), deny()],
    ['version 3 with digest d3 in C_OPS', ask('U_V', [], 'auto_run', step(), { planVersion: 3, digest: 'd3' }), permit('versioned')],
    ['version 3 with digest d3 in another channel', ask('U_V', [], 'auto_run', step(), { planVersion: 3, digest: 'd3', channel: 'C_ENG' }), deny()],
    ['the requester cancelling their run', ask('UREQ', [], 'cancel', run()), permit('own-runs')],
    ['someone cancelling a run they did not ask for', ask('UOTHER', [], 'cancel', run(), { requester: 'UOTHER' }), deny()],
    ['the requester cancelling their run in another channel', ask('UREQ', [], 'cancel', run({ channel: 'C_ENG' })), deny()],
    ['the maker removing an hourly schedule', ask('UMAKER', [], 'cancel', schedule()), permit('makers')],
    ['the maker removing a schedule every 59 minutes', ask('UMAKER', [], 'cancel', schedule({ intervalSeconds: 3540 })), deny()],
    ['the maker removing a schedule in another channel', ask('UMAKER', [], 'cancel', schedule({ channel: 'C_ENG' })), deny()],
    ['someone else removing it', ask('UOTHER', [], 'cancel', schedule()), deny()],
    ['on call retrying an escalated run', ask('U_ONCALL', [], 'retry', run(), { escalated: true }), permit('escalated')],
    ['on call retrying outside an escalation', ask('U_ONCALL', [], 'retry', run()), deny()],
  ])('%s', (_name, answer, expected) => {
    expect(answer).toEqual(expected);
  });

  it('names the rules behind an answer in the order the policy states them', () => {
    const forbids = loadPolicy([
      {
        file: 'f.cedar',
        text: ['c', 'a', 'b'].map((id) => `@id("${id}") forbid (principal, action == Action::"approve", resource is Step);`).join('\n'),
      },
    ]);
    expect(forbids.ok && forbids.value.decide({ user: 'U1', groups: [], action: 'approve', resource: step(), situation: SITUATION }).rules).toEqual([
      'c',
      'a',
      'b',
    ]);
  });

  it('a rule that fails to evaluate neither permits nor forbids, and says why', () => {
    expect(ask('U_ODD', [], 'skip', run(), { planVersion: 1 })).toEqual({
      permitted: false,
      rules: [],
      errors: ['overflow: integer overflow while attempting to add the values `1` and `9223372036854775807`'],
    });
  });

  it('a question Cedar cannot read is denied, with its words', () => {
    expect(ask('U_BOT', [], 'auto_run', step(), { confidence: Number.NaN })).toEqual({
      permitted: false,
      rules: [],
      errors: ['while parsing context, found a `null`; JSON `null`s are not allowed in Cedar'],
    });
  });
});

describe('who may, before anyone asked', () => {
  const whoMay = (action: PolicyAction, resource: PolicyResource, situation: Partial<PolicySituation> = {}) =>
    engine.whoMay({ action, resource, situation: { ...SITUATION, ...situation } }).map((rule) => rule.id);

  it.each([
    ['approving a read step: a group, the requester, a named user; never a forbid rule', 'approve', step(), {}, ['eng-reads', 'own-get', 'root', 'also-eng']],
    ['approving a step on acme/prod: nobody but through no rule (the forbid matches everyone)', 'approve', step({ repository: 'acme/prod' }), {}, []],
    ['confirming a write step: the user every action is open to', 'confirm', step({ risk: 'write', tool: 'put' }), {}, ['root']],
    ['cancelling a run: its requester', 'cancel', run(), {}, ['own-runs', 'root']],
    // The checks ask with the schedule's maker as the requester.
    ['removing a schedule: its maker', 'cancel', schedule(), { requester: 'UMAKER' }, ['makers', 'root']],
    ['retrying an escalated run: the named user', 'retry', run(), { escalated: true }, ['escalated', 'root']],
    // Probed in no group, in every group, and in each group alone.
    ['skipping: a member of two groups at once', 'skip', run(), {}, ['overflow', 'root', 'both-groups']],
    ['aborting: a member of one group but not the other', 'abort', run(), {}, ['root', 'a-not-b']],
    ['answering: a named person in no group', 'answer', run(), {}, ['root', 'in-no-group']],
    // Probed as nobody in particular, too.
    ['replanning: anyone but the requester', 'replan', run(), {}, ['root', 'not-the-requester']],
  ] as const)('%s', (_name, action, resource, situation, rules) => {
    expect(whoMay(action, resource, situation)).toEqual(rules);
  });

  it('answers with each rule as the policy states it', () => {
    expect(engine.whoMay({ action: 'retry', resource: run(), situation: { ...SITUATION, escalated: true } })).toEqual([
      { id: 'escalated', effect: 'permit', approvals: 1, who: 'user U_ONCALL', reason: undefined, file: 'team.cedar', line: 30 },
      { id: 'root', effect: 'permit', approvals: 1, who: 'user U_ROOT', reason: undefined, file: 'team.cedar', line: 38 },
    ]);
  });
});

describe('what a loaded policy says about itself', () => {
  it('the groups worth looking up, once each, and the rules that permit everyone', () => {
    const text = `
@id("a") permit (principal in Group::"S1", action == Action::"approve", resource is Step);
@id("b") permit (principal, action == Action::"approve", resource is Step) when { principal in Group::"S2" || principal in Group::"S1" };
@id("open") permit (principal, action == Action::"confirm", resource is Step);
@id("shut") forbid (principal, action == Action::"confirm", resource is Step);
@id("mine") permit (principal, action == Action::"cancel", resource is Run) when { principal == resource.requester };
`;
    const policy = loadPolicy([{ file: 'p.cedar', text }]);
    expect(policy.ok && { groups: policy.value.groups, warnings: policy.value.warnings }).toEqual({
      groups: ['S1', 'S2'],
      warnings: [{ file: 'p.cedar', line: 4, column: 1, message: 'rule "open" has no condition on principal: it permits everyone' }],
    });
  });

  it('its hash, its sources as loaded, and its rules without their text', () => {
    const sources: PolicySource[] = [{ file: 'team.cedar', text: POLICY }];
    expect(engine.hash).toBe(policyHash(sources));
    expect(engine.sources).toEqual(sources);
    expect(Object.keys(engine.rules[0]!).sort()).toEqual(['approvals', 'effect', 'file', 'id', 'line', 'reason', 'who']);
    expect(engine.fromSettings).toBeUndefined();
  });
});

describe('the policy hash', () => {
  const a: PolicySource = { file: 'a.cedar', text: 'permit(principal, action, resource);' };
  const b: PolicySource = { file: 'b.cedar', text: 'forbid(principal, action, resource);' };

  it('is sha256 in hex, and does not depend on the order the files were read in', () => {
    expect(policyHash([a, b])).toMatch(/^[0-9a-f]{64}$/);
    expect(policyHash([b, a])).toBe(policyHash([a, b]));
  });

  it.each([
    ['a text changed', [a, { ...b, text: `${b.text} ` }]],
    ['a file renamed', [a, { ...b, file: 'c.cedar' }]],
    ['a letter moved from a file name into its text', [a, { file: 'b.ceda', text: `r${b.text}` }]],
    [
      'a letter moved from a text into the next file name',
      [
        { ...a, text: a.text.slice(0, -1) },
        { ...b, file: `;${b.file}` },
      ],
    ],
    ['a file left out', [a]],
  ] as const)('changes when %s', (_name, sources) => {
    expect(policyHash([...sources])).not.toBe(policyHash([a, b]));
  });

  it('keeps the schema apart from the first file name', () => {
    expect(policyHash([{ file: 'a.cedar', text: a.text }], 'S')).not.toBe(policyHash([{ file: '.cedar', text: a.text }], 'Sa'));
  });

  it('changes with the schema', () => {
    expect(policyHash([a], `${tandemSchema()}\n`)).not.toBe(policyHash([a]));
    expect(policyHash([a], tandemSchema())).toBe(policyHash([a]));
  });
});
