import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planDigest, shortDigest } from '../../src/agent/model/plan/plan-digest.ts';
import type { Plan } from '../../src/agent/model/plan/plan.ts';

const json = fc.jsonValue({ maxDepth: 2 });
const args = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), json, { minKeys: 1, maxKeys: 4 });
const plan: fc.Arbitrary<Plan> = fc.record({
  schemaVersion: fc.constant(1 as const),
  goal: fc.string({ minLength: 1, maxLength: 30 }),
  confidence: fc.double({ min: 0, max: 1, noNaN: true }),
  steps: fc
    .array(fc.record({ title: fc.string({ minLength: 1, maxLength: 20 }), tool: fc.constantFrom('github_comment', 'slack_notify'), args }), {
      minLength: 1,
      maxLength: 3,
    })
    .map((steps) => steps.map((step, index) => ({ ...step, id: `s${index + 1}`, dependsOn: index > 0 ? [`s${index}`] : [] }))),
  rollback: fc
    .array(fc.record({ title: fc.string({ minLength: 1, maxLength: 20 }), tool: fc.constant('github_comment'), args }), { maxLength: 2 })
    .map((steps) => steps.map((step, index) => ({ ...step, id: `r${index + 1}` }))),
});

/** The same object with every object's keys in reverse order, as a store may give them back. */
function reorder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reorder);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([key, inner]) => [key, reorder(inner)]),
    );
  return value;
}

describe('plan digest', () => {
  it('is 64 hex characters; its short form is the first 12', async () => {
    const digest = await planDigest({ schemaVersion: 1, goal: 'g', confidence: 1, steps: [], rollback: [] });
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(shortDigest(digest)).toBe(digest.slice(0, 12));
  });

  it('changes with any argument of any step, forward or rollback', async () => {
    await fc.assert(
      fc.asyncProperty(plan, fc.nat(), json, async (p, pick, replacement) => {
        const all = [...p.steps, ...p.rollback];
        const step = all[pick % all.length]!;
        const name = Object.keys(step.args)[pick % Object.keys(step.args).length]!;
        fc.pre(JSON.stringify(step.args[name]) !== JSON.stringify(replacement));
        const changed = structuredClone(p);
        const target = [...changed.steps, ...changed.rollback].find((s) => s.id === step.id)!;
        target.args[name] = replacement;
        expect(await planDigest(changed)).not.toBe(await planDigest(p));
      }),
      { numRuns: 100 },
    );
  });

  it('changes with the goal, a title, a tool, the order of steps, dependsOn and expect', async () => {
    await fc.assert(
      fc.asyncProperty(plan, async (p) => {
        const base = await planDigest(p);
        const variants: Plan[] = [
          { ...p, goal: `${p.goal}!` },
          { ...p, steps: p.steps.map((s, i) => (i === 0 ? { ...s, title: `${s.title}!` } : s)) },
          { ...p, steps: p.steps.map((s, i) => (i === 0 ? { ...s, tool: s.tool === 'slack_notify' ? 'github_comment' : 'slack_notify' } : s)) },
          { ...p, steps: p.steps.map((s, i) => (i === 0 ? { ...s, expect: 'all green' } : s)) },
          { ...p, steps: p.steps.map((s, i) => (i === 0 ? { ...s, dependsOn: ['zz'] } : s)) },
        ];
        if (p.steps.length > 1) variants.push({ ...p, steps: [...p.steps].reverse() });
        for (const variant of variants) expect(await planDigest(variant)).not.toBe(base);
      }),
      { numRuns: 40 },
    );
  });

  it('does not change with anything else: key order, confidence, questions', async () => {
    await fc.assert(
      fc.asyncProperty(plan, fc.double({ min: 0, max: 1, noNaN: true }), async (p, confidence) => {
        const base = await planDigest(p);
        expect(await planDigest(reorder(p) as Plan)).toBe(base);
        expect(await planDigest({ ...p, confidence })).toBe(base);
        expect(await planDigest({ ...p, questions: ['why?'] })).toBe(base);
      }),
      { numRuns: 60 },
    );
  });
});
