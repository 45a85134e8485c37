/**
 * Issue 37: what the policy adapter says when a question meets no rule at all, where a validation error of a
 * policy of several files is placed, and where the built-in policy's rules stand (decisions and `tandem policy
 * explain` name a rule by its file and line).
 */
import { describe, expect, it } from 'vitest';
import { builtinPolicy, BUILTIN_POLICY_FILE } from '../../src/policy/builtin-policy.ts';
import { loadPolicy } from '../../src/policy/cedar-engine.ts';
import { formatProblem } from '../../src/policy/source-position.ts';

describe('a question no rule of the policy can answer', () => {
  const loaded = loadPolicy([
    { file: 'team.cedar', text: '@id("approvers")\npermit (principal == User::"UAPP", action == Action::"approve", resource is Step);\n' },
  ]);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));

  it.each(['cancel', 'schedule', 'auto_run'] as const)('%s: denied by no rule, and no error to report', (action) => {
    const resource =
      action === 'schedule' || action === 'cancel'
        ? ({ kind: 'schedule', scheduleId: 'sch1', channel: 'C1', createdBy: 'UAPP', intervalSeconds: 3600 } as const)
        : ({ kind: 'step', step: { id: 's1', tool: 'get', risk: 'read', repository: '', channel: 'C1', target: '', rollback: false } } as const);
    expect(loaded.value.decide({ user: 'UAPP', groups: [], action, resource, situation: { requester: 'UREQ', channel: 'C1' } })).toEqual({
      permitted: false,
      rules: [],
      errors: [],
    });
  });
});

describe('a policy of several files that does not validate', () => {
  it.each([
    [
      'an unknown action in the second file',
      [
        { file: 'a.cedar', text: '@id("a") permit (principal == User::"U1", action == Action::"approve", resource is Step);\n' },
        { file: 'b.cedar', text: '// ours\n\n@id("b") permit (principal, action == Action::"aprove", resource);\n' },
      ],
      ['b.cedar:3:39 for policy `b`, unrecognized action `Action::"aprove"` (did you mean `Action::"approve"`?)'],
    ],
    [
      'an unknown attribute in each file',
      [
        { file: 'a.cedar', text: '\n@id("a") permit (principal, action == Action::"approve", resource is Step) when { resource.repo == "x" };\n' },
        { file: 'b.cedar', text: '@id("b") permit (principal, action == Action::"confirm", resource is Step)\n  when { resource.riks == "read" };\n' },
      ],
      [
        'a.cedar:2:83 for policy `a`, attribute `repo` on entity type `Step` not found (did you mean `risk`?)',
        'b.cedar:2:10 for policy `b`, attribute `riks` on entity type `Step` not found (did you mean `risk`?)',
      ],
    ],
  ])('%s: each problem names its own file, line and column', (_name, sources, problems) => {
    const loaded = loadPolicy(sources);
    // Sorted: Cedar's validator lists the problems of several rules in an order of its own.
    expect(loaded.ok ? [] : loaded.error.map(formatProblem).sort()).toEqual(problems);
  });
});

describe('the built-in policy', () => {
  it.each([
    { approvers: [], autoRunReadOnly: false, repos: undefined },
    { approvers: ['UAPP', 'S_OPS'], autoRunReadOnly: true, repos: ['acme/api', 'globex/*'] },
  ])('puts each rule on lines of its own, where its file:line points (%j)', (settings) => {
    const source = builtinPolicy(settings);
    const loaded = loadPolicy([source]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const lines = source.text.split('\n');
    const places = loaded.value.rules.map((rule) => `${rule.file}:${rule.line} ${lines[rule.line - 1]!.slice(0, `@id("${rule.id}")`.length)}`);
    expect(places).toEqual(loaded.value.rules.map((rule) => `${BUILTIN_POLICY_FILE}:${rule.line} @id("${rule.id}")`));
    expect(new Set(loaded.value.rules.map((rule) => rule.line)).size).toBe(loaded.value.rules.length);
    // A blank line between rules, and the text ends with one line break.
    expect(source.text).toMatch(/;\n$/);
    expect(source.text.split(';\n\n@id(').length).toBe(loaded.value.rules.length);
  });
});
