import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { problemWords } from '../../src/agent/model/plan/plan-problems.ts';
import { validatePlan } from '../../src/agent/model/plan/plan-validation.ts';
import { said } from '../helpers/words.ts';
import { createToolRegistry } from '../../src/agent/model/tool-registry.ts';
import { fakeTool } from './support/fake-tools.ts';

const tools = createToolRegistry([
  fakeTool({ name: 'get_repo', risk: 'read', input: z.object({ repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'expected owner/name') }) }),
  fakeTool({ name: 'comment', risk: 'write', input: z.object({ repo: z.string(), number: z.number().int(), body: z.string() }) }),
  fakeTool({ name: 'label', risk: 'write', input: z.object({ repo: z.string(), labels: z.array(z.string()) }) }),
]);

const plan = (steps: unknown[], extra: Record<string, unknown> = {}) => ({ goal: 'g', confidence: 0.9, steps, ...extra });
const check = (input: unknown, maxSteps = 20) => validatePlan(input, tools, { maxSteps });
/** Each problem as the line a person or the model reads. */
const problems = (input: unknown, maxSteps = 20) => {
  const result = check(input, maxSteps);
  return result.ok ? [] : result.error.map((problem) => said(problemWords(problem))!);
};
const codes = (input: unknown, maxSteps = 20) => {
  const result = check(input, maxSteps);
  return result.ok ? [] : result.error.map((problem) => `${problem.code} ${problem.at}`);
};

describe('plan validation', () => {
  it('accepts a valid DAG with references to ancestors', () => {
    const result = check(
      plan([
        { id: 's1', title: 'a', tool: 'get_repo', args: { repo: 'acme/api' } },
        { id: 's2', title: 'b', tool: 'get_repo', args: { repo: 'acme/web' } },
        {
          id: 's3',
          title: 'c',
          tool: 'comment',
          args: { repo: '{{steps.s1.output.full_name}}', number: '{{steps.s2.output.number}}', body: 'see {{steps.s1.output.url}}' },
          dependsOn: ['s2', 's1'],
        },
      ]),
    );
    expect(result.ok ? 'ok' : result.error).toBe('ok');
  });

  it('rejects duplicate ids, unknown dependencies and cycles, naming each', () => {
    expect(
      problems(
        plan([
          { id: 's1', title: 'a', tool: 'get_repo', args: { repo: 'a/b' } },
          { id: 's1', title: 'b', tool: 'get_repo', args: { repo: 'a/b' } },
        ]),
      ),
    ).toEqual(['s1: the id s1 is used more than once']);
    expect(problems(plan([{ id: 's1', title: 'a', tool: 'get_repo', args: { repo: 'a/b' }, dependsOn: ['s7'] }]))).toEqual(['s1.dependsOn: unknown step s7']);
    expect(codes(plan([{ id: 's1', title: 'a', tool: 'get_repo', args: { repo: 'a/b' }, dependsOn: ['s7'] }]))).toEqual(['unknown-step s1.dependsOn']);
    const cycle = problems(
      plan([
        { id: 's1', title: 'a', tool: 'get_repo', args: { repo: 'a/b' }, dependsOn: ['s3'] },
        { id: 's2', title: 'b', tool: 'get_repo', args: { repo: 'a/b' }, dependsOn: ['s1'] },
        { id: 's3', title: 'c', tool: 'get_repo', args: { repo: 'a/b' }, dependsOn: ['s2'] },
      ]),
    );
    expect(cycle).toHaveLength(1);
    expect(cycle[0]).toMatch(/cycle \(s\d → s\d → s\d → s\d\)/);
  });

  it('rejects unknown tools and args that fail the tool schema, with the path', () => {
    expect(problems(plan([{ id: 's1', title: 'a', tool: 'deploy_prod', args: {} }]))[0]).toMatch(
      /^s1\.tool: unknown tool deploy_prod \(known: get_repo, comment, label\)/,
    );
    expect(problems(plan([{ id: 's3', title: 'a', tool: 'get_repo', args: { repo: 'nope' } }]))).toEqual(['s3.args.repo: expected owner/name']);
    expect(problems(plan([{ id: 's1', title: 'a', tool: 'comment', args: { repo: 'a/b', body: 'x' } }]))[0]).toMatch(/^s1\.args\.number: /);
  });

  it('checks references: ancestors only, and text around a reference is a string', () => {
    const notAncestor = problems(
      plan([
        { id: 's1', title: 'a', tool: 'get_repo', args: { repo: 'a/b' } },
        { id: 's2', title: 'b', tool: 'comment', args: { repo: 'a/b', number: 1, body: '{{steps.s1.output.url}}' } },
      ]),
    );
    expect(notAncestor).toEqual(['s2.args.body: {{steps.s1.output.url}} names s1, which is not among the steps s2 depends on (add it to dependsOn)']);
    const textForNumber = problems(
      plan([
        { id: 's1', title: 'a', tool: 'get_repo', args: { repo: 'a/b' } },
        { id: 's2', title: 'b', tool: 'comment', args: { repo: 'a/b', number: '#{{steps.s1.output.number}}', body: 'x' }, dependsOn: ['s1'] },
      ]),
    );
    expect(textForNumber).toEqual(['s2.args.number: text around a reference makes a string, but number is expected; use the reference alone']);
    const malformed = problems(plan([{ id: 's1', title: 'a', tool: 'get_repo', args: { repo: '{{steps.s0.out}}' } }]));
    // Not a reference, so the schema judges it as it stands too.
    expect(malformed).toEqual(['s1.args.repo: expected owner/name', 's1.args.repo: {{steps.s0.out}} is not a reference; write {{steps.<id>.output.<path>}}']);
  });

  it('allows a whole-string reference where the schema wants a number or a list', () => {
    const result = check(
      plan([
        { id: 's1', title: 'a', tool: 'get_repo', args: { repo: 'a/b' } },
        { id: 's2', title: 'b', tool: 'label', args: { repo: 'a/b', labels: '{{steps.s1.output.topics}}' }, dependsOn: ['s1'] },
      ]),
    );
    expect(result.ok).toBe(true);
  });

  it('rejects more steps than TANDEM_MAX_STEPS', () => {
    const steps = Array.from({ length: 4 }, (_, i) => ({ id: `s${i}`, title: 't', tool: 'get_repo', args: { repo: 'a/b' } }));
    expect(problems(plan(steps), 3)).toEqual(['steps: 4 steps is more than the limit of 3 (TANDEM_MAX_STEPS)']);
    expect(codes(plan(steps), 3)).toEqual(['too-many-steps steps']);
  });

  it("checks rollback steps: known undone step, tool, args, and references within that step's line", () => {
    const found = problems(
      plan(
        [
          { id: 's1', title: 'a', tool: 'comment', args: { repo: 'a/b', number: 1, body: 'x' } },
          { id: 's2', title: 'b', tool: 'get_repo', args: { repo: 'a/b' } },
        ],
        {
          rollback: [
            { id: 'r1', title: 'undo', tool: 'comment', args: { repo: 'a/b', number: '{{steps.s2.output.n}}', body: 'undo' }, undoes: 's1' },
            { id: 'r2', title: 'undo', tool: 'nope', args: {}, undoes: 's9' },
          ],
        },
      ),
    );
    expect(found).toEqual([
      'r2.undoes: unknown step s9',
      'r2.tool: unknown tool nope (known: get_repo, comment, label)',
      'r1.args.number: {{steps.s2.output.n}} names s2, which is neither s1 nor a step it depends on',
    ]);
  });

  it('accepts a plan made only of questions and rejects one with neither steps nor questions', () => {
    expect(check(plan([], { questions: ['Which repo?'] })).ok).toBe(true);
    expect(problems(plan([]))).toEqual(['plan: a plan needs at least one step or a question']);
    expect(codes(plan([]))).toEqual(['empty-plan plan']);
  });

  it('reports schema problems by step id', () => {
    expect(problems({ goal: 'g', confidence: 2, steps: [{ id: 's1', title: '', tool: 'get_repo' }] })).toEqual([
      'confidence: Too big: expected number to be <=1',
      's1.title: Too small: expected string to have >=1 characters',
    ]);
    // A rollback step is named by its id too; a step without an id, by its place; a plan that is no object, as the plan.
    expect(problems({ goal: 'g', confidence: 1, steps: [{ title: 'x', tool: 'get_repo' }], rollback: [{ id: 'r1', title: '', tool: 'get_repo' }] })).toEqual([
      'steps.0.id: Invalid input: expected string, received undefined',
      'r1.title: Too small: expected string to have >=1 characters',
    ]);
    expect(problems(null)).toEqual(['plan: Invalid input: expected object, received null']);
  });

  it('lets a replanned version read steps that already succeeded, but not reuse their ids', () => {
    const options = { maxSteps: 20, completedSteps: new Set(['s1']) };
    expect(
      validatePlan(plan([{ id: 's5', title: 'a', tool: 'comment', args: { repo: 'a/b', number: '{{steps.s1.output.number}}', body: 'x' } }]), tools, options)
        .ok,
    ).toBe(true);
    const reused = validatePlan(plan([{ id: 's1', title: 'a', tool: 'get_repo', args: { repo: 'a/b' } }]), tools, options);
    expect(reused.ok ? [] : reused.error.map((p) => said(problemWords(p)))).toEqual(['s1: the id s1 belongs to a step that already ran; use a new id']);
    expect(reused.ok ? [] : reused.error.map((p) => p.code)).toEqual(['id-already-ran']);
  });
});
