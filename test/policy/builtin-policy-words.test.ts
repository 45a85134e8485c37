/**
 * The built-in policy compiled from the settings (src/policy/builtin-policy.ts) and the policy in force
 * (policy-in-force.ts), as tables: the rules it holds for each kind of settings with the words a refusal
 * uses (who may, and why), the repository allow-list's edges, and what a reload or a bad policy leaves.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinPolicy, BUILTIN_POLICY_FILE, type BuiltinSettings } from '../../src/policy/builtin-policy.ts';
import { loadPolicy } from '../../src/policy/cedar-engine.ts';
import { createPolicyHolder, loadPolicyInForce, problemLine, settingsGate, settingsPolicy } from '../../src/policy/policy-in-force.ts';
import type { PolicyEngine, PolicyStep } from '../../src/agent/ports/policy.ts';

const engineOf = (settings: BuiltinSettings) => {
  const loaded = loadPolicy([builtinPolicy(settings)]);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  return loaded.value;
};
const rulesOf = (settings: BuiltinSettings) => engineOf(settings).rules.map(({ id, effect, who, reason }) => ({ id, effect, who, reason }));

const BASE = [
  { id: 'anyone-requests', effect: 'permit', who: 'anyone the rule allows', reason: undefined },
  { id: 'approvers-approve', effect: 'permit', who: 'an approver', reason: undefined },
  { id: 'four-eyes', effect: 'forbid', who: 'an approver other than the person who asked', reason: 'This step is destructive' },
  { id: 'requester-steers', effect: 'permit', who: 'the person who asked', reason: undefined },
  { id: 'approvers-steer', effect: 'permit', who: 'an approver', reason: undefined },
  { id: 'approvers-schedule', effect: 'permit', who: 'an approver', reason: undefined },
  { id: 'maker-removes-schedule', effect: 'permit', who: 'the person who made it', reason: undefined },
  { id: 'approvers-remove-schedules', effect: 'permit', who: 'an approver', reason: undefined },
];

describe('the rules compiled from the settings', () => {
  it('with approvers, no auto-run and no allow-list: the eight rules, "an approver" where the list decides', () => {
    expect(builtinPolicy({ approvers: ['U1'], autoRunReadOnly: false, repos: undefined }).file).toBe(BUILTIN_POLICY_FILE);
    expect(BUILTIN_POLICY_FILE).toBe('built-in.cedar');
    expect(rulesOf({ approvers: ['U1', 'S1'], autoRunReadOnly: false, repos: undefined })).toEqual(BASE);
  });

  it('with no approvers, "anyone" where the list would decide', () => {
    expect(rulesOf({ approvers: [], autoRunReadOnly: false, repos: undefined })).toEqual(
      BASE.map((rule) => (rule.who === 'an approver' ? { ...rule, who: 'anyone' } : rule)),
    );
  });

  it('with read-only auto-run and an allow-list, their two rules after the eight', () => {
    expect(rulesOf({ approvers: ['U1'], autoRunReadOnly: true, repos: ['acme/*'] })).toEqual([
      ...BASE,
      { id: 'auto-run-read-only', effect: 'permit', who: 'anyone the rule allows', reason: undefined },
      { id: 'repositories', effect: 'forbid', who: 'anyone the rule allows', reason: 'That repository is not on the allow-list' },
    ]);
  });

  it('names a user group (S…) by membership and a person (U…) by id; looks up only the groups', () => {
    const engine = engineOf({ approvers: ['U1', 'S1'], autoRunReadOnly: false, repos: undefined });
    expect(engine.groups).toEqual(['S1']);
    const approves = (user: string, groups: string[]) => approve(engine, user, groups, { risk: 'write' }).permitted;
    expect([approves('U1', []), approves('U2', ['S1']), approves('U2', []), approves('S1', [])]).toEqual([true, true, false, false]);
  });
});

const STEP: PolicyStep = { id: 's1', tool: 'github_merge_pull', risk: 'read', repository: '', channel: 'C1', target: '', rollback: false };
function approve(engine: PolicyEngine, user: string, groups: string[], step: Partial<PolicyStep>, action: 'approve' | 'confirm' | 'auto_run' = 'approve') {
  return engine.decide({ user, groups, action, resource: { kind: 'step', step: { ...STEP, ...step } }, situation: { requester: 'UREQ', channel: 'C1' } });
}

describe('the repository allow-list', () => {
  it.each([
    [['acme/*', 'other/x'], 'acme/api', true],
    [['acme/*', 'other/x'], 'acme/web', true],
    [['acme/*', 'other/x'], 'other/x', true],
    [['acme/*', 'other/x'], 'other/y', false],
    [['acme/*', 'other/x'], 'acme', false],
    [['acme/*', 'other/x'], 'xacme/api', false],
    [['acme/*', 'other/x'], 'other/x/y', false],
    // A step that names no repository is judged once its target is filled in, not here.
    [['acme/*'], '', true],
    [[], 'acme/api', false],
    [[], '', true],
  ] as const)('%j lets a step on %j be approved, confirmed and auto-run: %s', (repos, repository, allowed) => {
    const engine = engineOf({ approvers: [], autoRunReadOnly: true, repos: [...repos] });
    const answers = (['approve', 'confirm', 'auto_run'] as const).map((action) => approve(engine, 'U1', [], { repository }, action));
    expect(answers).toEqual(
      ['approvers-approve', 'approvers-approve', 'auto-run-read-only'].map((rule) =>
        allowed ? { permitted: true, rules: [rule], errors: [] } : { permitted: false, rules: ['repositories'], errors: [] },
      ),
    );
  });

  it('a `*` inside a name is a letter, not a pattern', () => {
    const engine = engineOf({ approvers: [], autoRunReadOnly: false, repos: ['acme/a*i'] });
    expect([approve(engine, 'U1', [], { repository: 'acme/a*i' }).permitted, approve(engine, 'U1', [], { repository: 'acme/api' }).permitted]).toEqual([
      true,
      false,
    ]);
  });
});

describe('the policy in force', () => {
  const settings = { approvers: ['U1'], autoRunReadOnly: false, repos: undefined };

  it('with TANDEM_POLICY unset: the built-in policy, marked as made from the settings', () => {
    const loaded = loadPolicyInForce({ ...settings, path: undefined });
    expect(loaded.ok && { fromSettings: loaded.value.fromSettings, files: loaded.value.sources.map((source) => source.file) }).toEqual({
      fromSettings: true,
      files: ['built-in.cedar'],
    });
  });

  it('with TANDEM_POLICY set: its files, not marked as the settings', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tandem-policy-'));
    const file = path.join(dir, 'team.cedar');
    writeFileSync(file, '@id("mine") permit (principal == User::"U9", action == Action::"approve", resource is Step);\n');
    const loaded = loadPolicyInForce({ ...settings, path: file });
    expect(loaded.ok && { fromSettings: loaded.value.fromSettings, rules: loaded.value.rules.map((rule) => rule.id) }).toEqual({
      fromSettings: undefined,
      rules: ['mine'],
    });
    const missing = loadPolicyInForce({ ...settings, path: path.join(dir, 'nope.cedar') });
    expect(missing.ok ? [] : missing.error.map((problem) => problem.message)).toEqual(['cannot read the policy: ENOENT']);
  });

  it('the gate answers with the built-in policy every time, and passes the group directory on', () => {
    const groups = { groupsOf: async () => [] };
    const gate = settingsGate(settings, groups);
    expect(gate.current().fromSettings).toBe(true);
    expect(gate.current()).toBe(gate.current());
    expect(gate.groups).toBe(groups);
    expect(settingsPolicy(settings).ok).toBe(true);
  });

  it('settings that do not compile stop the gate with the first problem in words', () => {
    const groups = { groupsOf: async () => [] };
    expect(() => settingsGate({ approvers: ['U\u0001'], autoRunReadOnly: false, repos: undefined }, groups)).toThrow(
      /^the built-in policy does not compile: built-in\.cedar:\d+:\d+ .+/,
    );
  });

  it.each([
    [[], 'the policy is invalid'],
    [[{ file: 'a.cedar', line: 2, column: 3, message: 'bad' }], 'a.cedar:2:3 bad'],
    [
      [
        { file: 'a.cedar', line: 2, column: 3, message: 'bad' },
        { file: 'b.cedar', line: 1, column: 1, message: 'worse' },
        { file: 'c.cedar', line: 1, column: 1, message: 'worst' },
      ],
      'a.cedar:2:3 bad (and 2 more: tandem policy check)',
    ],
  ] as const)('%j is said in one line: %s', (problems, line) => {
    expect(problemLine([...problems])).toBe(line);
  });

  it('a reload swaps in a valid policy, and keeps the one in force when the next is invalid', () => {
    const first = engineOf(settings);
    const second = engineOf({ ...settings, approvers: ['U2'] });
    const next: (PolicyEngine | string)[] = [second, 'broken'];
    const holder = createPolicyHolder(first, () => {
      const value = next.shift()!;
      return typeof value === 'string' ? { ok: false, error: [{ file: 'team.cedar', line: 1, column: 1, message: value }] } : { ok: true, value };
    });
    expect(holder.current()).toBe(first);
    expect(holder.reload()).toEqual({ ok: true, value: second });
    expect(holder.current()).toBe(second);
    expect(holder.reload()).toEqual({ ok: false, error: 'team.cedar:1:1 broken' });
    expect(holder.current()).toBe(second);
  });
});
