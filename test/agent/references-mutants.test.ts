/** Issue 37: references found and filled, as tables of inputs and what a step receives or a person reads. */
import { describe, expect, it } from 'vitest';
import { fillReferences, findReferences, readPath } from '../../src/agent/model/references.ts';

const outputs = new Map<string, Record<string, unknown>>([
  ['s1', { number: 42, title: 'Fix it', labels: ['a', 'b'], head: { sha: 'abc' }, zero: 0, none: null }],
  ['s2', { answer: 'acme/api' }],
]);
const found = (value: unknown, at?: string) => {
  const { references, malformed } = findReferences(value, at);
  return { references: references.map((r) => `${r.at || '(value)'} ${r.stepId} [${r.path.join('.')}] ${r.whole ? 'whole' : 'in text'} ${r.raw}`), malformed };
};

describe('finding references', () => {
  it.each([
    ['a whole reference', '{{steps.s1.output.number}}', ['(value) s1 [number] whole {{steps.s1.output.number}}'], []],
    ['spaces inside the braces and around the string', '  {{ steps.s1.output.head.sha }} ', ['(value) s1 [head.sha] whole {{ steps.s1.output.head.sha }}'], []],
    ['the whole output', '{{steps.s1.output}}', ['(value) s1 [] whole {{steps.s1.output}}'], []],
    [
      'two references in text',
      'PR {{steps.s1.output.number}} in {{steps.s2.output.answer}}',
      ['(value) s1 [number] in text {{steps.s1.output.number}}', '(value) s2 [answer] in text {{steps.s2.output.answer}}'],
      [],
    ],
    ['an id with dashes and underscores', '{{steps.get-pr_2.output.x}}', ['(value) get-pr_2 [x] whole {{steps.get-pr_2.output.x}}'], []],
    ['an id that starts with a digit', '{{steps.1a.output.x}}', [], [{ at: '', text: '{{steps.1a.output.x}}' }]],
    ['a misspelt output', '{{ steps.s1.out }}', [], [{ at: '', text: '{{ steps.s1.out }}' }]],
    ['braces that are not about steps', 'use {{ mustache }} and {{stepsize}}', [], []],
    ['braces that mention steps later on', 'run {{ all steps }}', [], []],
  ])('%s', (_name, value, references, malformed) => {
    expect(found(value)).toEqual({ references, malformed });
  });

  it('says where each sits inside nested args, under a given prefix', () => {
    const value = { body: { lines: ['x', 'see {{steps.s1.output.title}}'] }, n: 3, flag: true, gone: null, bad: ['{{steps.s1}}'] };
    expect(found(value)).toEqual({
      references: ['body.lines.1 s1 [title] in text {{steps.s1.output.title}}'],
      malformed: [{ at: 'bad.0', text: '{{steps.s1}}' }],
    });
    expect(found(value, 'args').references).toEqual(['args.body.lines.1 s1 [title] in text {{steps.s1.output.title}}']);
    expect(found('{{steps.s1.output.n}}', 'number').references).toEqual(['number s1 [n] whole {{steps.s1.output.n}}']);
  });
});

describe('reading a path inside an output', () => {
  it.each([
    [['head', 'sha'], 'abc'],
    [['labels', '1'], 'b'],
    [[], outputs.get('s1')],
    [['none', 'x'], undefined],
    [['title', 'length'], undefined],
    [['missing', 'x'], undefined],
    [['zero'], 0],
  ])('%j', (path, expected) => {
    expect(readPath(outputs.get('s1'), path)).toBe(expected);
  });
});

describe('filling references', () => {
  const quote = (text: string) => `«${text}»`;

  it('quotes every filled-in string, whole or in text, and writes lists and objects into text as JSON', () => {
    expect(
      fillReferences(
        {
          repo: '{{steps.s2.output.answer}}',
          body: 'PR {{steps.s1.output.number}}: {{steps.s1.output.title}} {{steps.s1.output.labels}} {{steps.s1.output.head}} {{steps.s1.output.zero}}',
          number: '{{steps.s1.output.number}}',
          nested: [{ sha: '{{steps.s1.output.head.sha}}' }],
          plain: 'no {{ braces }} here',
          count: 3,
        },
        outputs,
        quote,
      ),
    ).toEqual({
      ok: true,
      value: {
        repo: '«acme/api»',
        body: 'PR «42»: «Fix it» «["a","b"]» «{"sha":"abc"}» «0»',
        number: 42,
        nested: [{ sha: '«abc»' }],
        plain: 'no {{ braces }} here',
        count: 3,
      },
    });
  });

  it('writes a single reference inside text into the text, as text', () => {
    expect(fillReferences({ body: 'PR {{steps.s1.output.number}}', title: ' {{steps.s1.output.number}} ' }, outputs)).toEqual({
      ok: true,
      value: { body: 'PR 42', title: 42 },
    });
  });

  it('names every reference that resolves to nothing, each with its arg', () => {
    expect(
      fillReferences(
        {
          a: '{{steps.s9.output.x}}',
          list: ['see {{steps.s1.output.none}} and {{steps.s1.output.number}}'],
          whole: '{{steps.s1.output.missing.deep}}',
          out: '{{steps.s9.output}}',
        },
        outputs,
      ),
    ).toEqual({
      ok: false,
      error: {
        code: 'unresolved-reference',
        message: [
          'a: {{steps.s9.output.x}} has no recorded output of step s9',
          "list.0: {{steps.s1.output.none}} resolved to nothing (s1's output has no none)",
          "whole: {{steps.s1.output.missing.deep}} resolved to nothing (s1's output has no missing.deep)",
          'out: {{steps.s9.output}} has no recorded output of step s9',
        ].join('; '),
      },
    });
    expect(fillReferences({ x: '{{steps.s2.output}}' }, new Map([['s2', null as unknown as Record<string, unknown>]]))).toEqual({
      ok: false,
      error: { code: 'unresolved-reference', message: 'x: {{steps.s2.output}} has no recorded output of step s2' },
    });
  });
});
