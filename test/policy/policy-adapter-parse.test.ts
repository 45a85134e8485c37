/**
 * The policy adapter reading rules (src/policy/parse-policy-set.ts, source-position.ts), as tables: the
 * problems a person is shown for a policy that cannot load (the exact `file:line:column message`), and what
 * each rule says about itself (id, approvals, who, reason, place).
 */
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../src/policy/cedar-engine.ts';
import { formatProblem, positionAt } from '../../src/policy/source-position.ts';
import type { PolicySource } from '../../src/agent/ports/policy.ts';

const problemsOf = (sources: PolicySource[]) => {
  const loaded = loadPolicy(sources);
  return loaded.ok ? [] : loaded.error.map(formatProblem);
};
const rulesOf = (text: string, file = 'team.cedar') => {
  const loaded = loadPolicy([{ file, text }]);
  if (!loaded.ok) throw new Error(loaded.error.map(formatProblem).join('\n'));
  return loaded.value.rules;
};

describe('a policy that cannot load names each problem by file, line and column', () => {
  it.each([
    [
      'a rule that does not parse',
      [{ file: 'a.cedar', text: 'permit(principal, action, resource)\nwhen { resource.risk == };\n' }],
      ['a.cedar:2:25 unexpected token `}`'],
    ],
    [
      'two broken files: both are reported, nothing is skipped',
      [
        { file: 'a.cedar', text: 'permit(principal, action, resource)\nwhen { resource.risk == };\n' },
        { file: 'b.cedar', text: '\n\nforbid(principal action, resource);' },
      ],
      ['a.cedar:2:25 unexpected token `}`', 'b.cedar:3:18 unexpected token `action`'],
    ],
    [
      'a template',
      [{ file: 'a.cedar', text: '@id("t") permit(principal == ?principal, action, resource);' }],
      ['a.cedar:1:1 templates (?principal, ?resource) are not supported; write the rule out'],
    ],
    [
      'an id used twice, in two files',
      [
        { file: 'a.cedar', text: '@id("d") permit(principal == User::"U1", action, resource);' },
        { file: 'b.cedar', text: '\n@id("d") permit(principal == User::"U2", action, resource);' },
      ],
      ['b.cedar:2:1 rule id "d" is used twice (first at a.cedar:1)'],
    ],
    [
      'an attribute the schema does not have, after a comment with a two-byte letter',
      [
        {
          file: 'a.cedar',
          text: '// é\n\n@id("x") permit(principal, action == Action::"approve", resource is Step)\n  when { resource.repo == "acme/api" };\n',
        },
      ],
      ['a.cedar:4:10 for policy `x`, attribute `repo` on entity type `Step` not found (did you mean `risk`?)'],
    ],
    [
      'an unknown action, on the second rule of a file',
      [
        {
          file: 'a.cedar',
          text: '@id("a") permit(principal == User::"U1", action, resource);\n@id("b") permit(principal, action == Action::"aprove", resource);\n',
        },
      ],
      ['a.cedar:2:38 for policy `b`, unrecognized action `Action::"aprove"` (did you mean `Action::"approve"`?)'],
    ],
  ] as const)('%s', (_name, sources, problems) => {
    expect(problemsOf(sources.map((source) => ({ ...source })))).toEqual(problems);
  });

  it.each([['0'], ['11'], ['1.5'], ['two'], ['']])('@approvals("%s") is refused at its rule', (value) => {
    expect(problemsOf([{ file: 'a.cedar', text: `\n@approvals("${value}") permit(principal == User::"U1", action, resource);` }])).toEqual([
      `a.cedar:2:1 @approvals("${value}") must be a whole number from 1 to 10`,
    ]);
  });

  it("a schema that does not parse is the schema's problem, not a rule's", () => {
    const loaded = loadPolicy([{ file: 'a.cedar', text: 'permit(principal == User::"U1", action, resource);' }], 'entity Foo = {');
    expect(loaded.ok ? [] : loaded.error.map(formatProblem)).toEqual([
      'schema:1:1 failed to parse schema from string: error parsing schema: unexpected end of input',
    ]);
  });
});

describe('what each rule says about itself', () => {
  it('its id, effect, approvals, who, reason and place, with the defaults where it says nothing', () => {
    const text = [
      '@id("owners") @approvals("2") @who("two members of @owners") @reason("Merging")',
      'permit(principal in Group::"S_OWNERS", action == Action::"approve", resource is Step);',
      '@approvals("10")',
      'permit(principal == User::"U1", action == Action::"approve", resource is Step);',
      '',
      'forbid(principal in Group::"S_BOTS", action, resource);',
      '@id("requester") permit(principal, action == Action::"cancel", resource is Run) when { principal == context.requester };',
    ].join('\n');
    expect(rulesOf(text)).toEqual([
      { id: 'owners', effect: 'permit', approvals: 2, who: 'two members of @owners', reason: 'Merging', file: 'team.cedar', line: 1 },
      { id: 'team.cedar:3', effect: 'permit', approvals: 10, who: 'user U1', reason: undefined, file: 'team.cedar', line: 3 },
      { id: 'team.cedar:6', effect: 'forbid', approvals: 1, who: 'a member of group S_BOTS', reason: undefined, file: 'team.cedar', line: 6 },
      { id: 'requester', effect: 'permit', approvals: 1, who: 'anyone the rule allows', reason: undefined, file: 'team.cedar', line: 7 },
    ]);
  });

  it('the same rule text twice is two rules at their own lines', () => {
    const rule = 'permit(principal == User::"U1", action == Action::"approve", resource is Step);';
    expect(rulesOf(`${rule}\n${rule}\n`).map((r) => r.id)).toEqual(['team.cedar:1', 'team.cedar:2']);
  });

  it('a file of more than ten rules keeps them in its order, each at its line (Cedar hands them back keyed policy0, policy1, policy10…)', () => {
    const text = Array.from({ length: 12 }, (_, i) => `permit (principal == User::"U${i}", action == Action::"approve", resource is Step);`).join('\n');
    expect(rulesOf(text, 'big.cedar').map((rule) => `${rule.id} ${rule.who}`)).toEqual(Array.from({ length: 12 }, (_, i) => `big.cedar:${i + 1} user U${i}`));
  });

  it('rules of several files keep their files and lines', () => {
    const loaded = loadPolicy([
      { file: 'b.cedar', text: '\n\n@id("b") permit(principal == User::"U2", action == Action::"approve", resource is Step);' },
      { file: 'a.cedar', text: '@id("a") permit(principal == User::"U1", action == Action::"approve", resource is Step);' },
    ]);
    expect(loaded.ok && loaded.value.rules.map((rule) => `${rule.id}@${rule.file}:${rule.line}`)).toEqual(['b@b.cedar:3', 'a@a.cedar:1']);
  });
});

describe('positions', () => {
  it.each([
    ['abc', 0, { line: 1, column: 1 }],
    ['abc', 2, { line: 1, column: 3 }],
    ['a\nbc', 3, { line: 2, column: 2 }],
    ['é\nx', 3, { line: 2, column: 1 }],
    ['éx', 2, { line: 1, column: 2 }],
    ['abc', -5, { line: 1, column: 1 }],
  ] as const)('byte %2$d of %1$j is %3$j', (text, offset, position) => {
    expect(positionAt(text, offset)).toEqual(position);
  });
});
