/**
 * What an approval binds to, edge by edge: a step's check (`expect`) and a rollback step's `undoes` decide what
 * runs, so changing either changes the digest; the order an object's keys were stored in does not. Each case was
 * a surviving mutant of plan-digest.ts (docs/mutation-survivors.md).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digestJson, planDigest } from '../../src/agent/model/plan/plan-digest.ts';
import type { Plan } from '../../src/agent/model/plan/plan.ts';

const base: Plan = {
  schemaVersion: 1,
  goal: 'Release v2',
  confidence: 0.9,
  steps: [
    { id: 's1', title: 'Create the release', tool: 'github_create_release', args: { repo: 'acme/api', tag: 'v2' }, dependsOn: [] },
    { id: 's2', title: 'Comment', tool: 'github_comment', args: { repo: 'acme/api', number: 7, body: 'done' }, dependsOn: ['s1'] },
  ],
  rollback: [{ id: 'r1', title: 'Delete the release', tool: 'github_delete_release', args: { repo: 'acme/api', tag: 'v2' } }],
};

describe('the plan digest', () => {
  it('changes when a step gains, loses or changes its check', async () => {
    const plain = await planDigest(base);
    const checked = await planDigest({ ...base, steps: [{ ...base.steps[0]!, expect: 'the release exists' }, base.steps[1]!] });
    const otherCheck = await planDigest({ ...base, steps: [{ ...base.steps[0]!, expect: 'the release is a draft' }, base.steps[1]!] });
    expect(new Set([plain, checked, otherCheck]).size).toBe(3);
  });

  it('changes when a rollback step gains or changes what it undoes', async () => {
    const plain = await planDigest(base);
    const undoes1 = await planDigest({ ...base, rollback: [{ ...base.rollback[0]!, undoes: 's1' }] });
    const undoes2 = await planDigest({ ...base, rollback: [{ ...base.rollback[0]!, undoes: 's2' }] });
    expect(new Set([plain, undoes1, undoes2]).size).toBe(3);
  });

  it('is the same whatever order the keys of any object were stored in, at any depth', () => {
    const key = fc.string({ minLength: 1, maxLength: 6 });
    const tree = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, fc.integer(), fc.string({ maxLength: 4 }), fc.dictionary(key, tie('node'), { maxKeys: 5 })),
    })).node;
    const reversed = (value: unknown): unknown =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(
            Object.entries(value)
              .reverse()
              .map(([k, v]) => [k, reversed(v)]),
          )
        : value;
    fc.assert(
      fc.property(tree, (value) => {
        expect(digestJson(reversed(value))).toBe(digestJson(value));
      }),
    );
    // Sorted by code unit, so the text is the same on every machine.
    expect(digestJson({ b: 1, a: 2, B: 3, ä: 4 })).toBe('{"B":3,"a":2,"b":1,"ä":4}');
    // A value JSON cannot spell (an absent expect) is spelled null, not left out of the hash.
    expect(digestJson(undefined)).toBe('null');
  });
});
