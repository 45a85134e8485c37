/**
 * Issue 37: references as properties over generated args and outputs — what a step receives for any value a
 * step recorded, anywhere in its args, and that text without a reference reaches the tool exactly as planned.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fillReferences, findReferences } from '../../src/agent/model/references.ts';

/** Keys and step ids as a plan may write them. */
const name = fc.stringMatching(/^[a-z][a-z0-9_-]{0,7}$/);
/** Text a person or a model might write, with no `{{` in it. */
const text = fc.string({ maxLength: 20 }).filter((value) => !value.includes('{{'));
/** JSON-like args with no reference anywhere. */
const plainArgs = fc.dictionary(
  name,
  fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 }), fc.dictionary(name, text, { maxKeys: 3 })),
  { maxKeys: 5 },
);
/** Anything a step may have recorded under one field of its output, except nothing. */
const recorded = fc.oneof(text, fc.integer(), fc.boolean(), fc.array(fc.integer(), { maxLength: 3 }), fc.dictionary(name, fc.integer(), { maxKeys: 3 }));
const spaces = fc.constantFrom('', ' ', '  ', '\n');

describe('references, over generated args and outputs', () => {
  it('hands args without a reference to the tool unchanged, whatever the outputs', () => {
    fc.assert(
      fc.property(plainArgs, (args) => {
        expect(fillReferences(args, new Map([['s1', { x: 1 }]]), (value) => `«${value}»`)).toEqual({ ok: true, value: args });
        expect(findReferences(args)).toEqual({ references: [], malformed: [] });
      }),
    );
  });

  it('gives a whole-string reference the recorded value with its type, quoting only text', () => {
    fc.assert(
      fc.property(name, name, recorded, spaces, spaces, (step, field, value, before, after) => {
        const filled = fillReferences({ arg: `${before}{{ steps.${step}.output.${field} }}${after}` }, new Map([[step, { [field]: value }]]), (t) => `«${t}»`);
        expect(filled).toEqual({ ok: true, value: { arg: typeof value === 'string' ? `«${value}»` : value } });
      }),
    );
  });

  it('writes a reference inside text into the text, objects and lists as JSON', () => {
    fc.assert(
      fc.property(name, recorded, text, text, (field, value, before, after) => {
        fc.pre(`${before}${after}`.trim() !== '');
        const filled = fillReferences({ arg: `${before}{{steps.s1.output.${field}}}${after}` }, new Map([['s1', { [field]: value }]]), (t) => `«${t}»`);
        const written = typeof value === 'object' ? JSON.stringify(value) : String(value);
        expect(filled).toEqual({ ok: true, value: { arg: `${before}«${written}»${after}` } });
      }),
    );
  });

  it('refuses a reference to a field no output has, naming the arg, the reference and the field, wherever it sits', () => {
    fc.assert(
      fc.property(name, name, text, fc.boolean(), (arg, field, before, inText) => {
        const raw = `{{steps.s1.output.${field}.deep}}`;
        const filled = fillReferences({ [arg]: [inText ? `${before}${raw}` : raw] }, new Map([['s1', { other: 1 }]]));
        expect(filled).toEqual({
          ok: false,
          error: { code: 'unresolved-reference', message: `${arg}.0: ${raw} resolved to nothing (s1's output has no ${field}.deep)` },
        });
      }),
    );
  });

  it('finds each reference at its place in nested args, whole or in text', () => {
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 4 }), text, (keys, before) => {
        const args = Object.fromEntries(
          keys.map((key, index) => [key, index % 2 ? { inner: [`${before}{{steps.${key}.output.x}}!`] } : `{{steps.${key}.output}}`]),
        );
        const { references, malformed } = findReferences(args);
        expect(malformed).toEqual([]);
        expect(references.map((ref) => [ref.at, ref.stepId, ref.path, ref.whole])).toEqual(
          keys.map((key, index) => (index % 2 ? [`${key}.inner.0`, key, ['x'], false] : [key, key, [], true])),
        );
      }),
    );
  });
});
