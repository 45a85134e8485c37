import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { problemWords } from '../../src/agent/model/plan/plan-problems.ts';
import { MAX_QUESTIONS, validatePlan, type PlanValidationOptions } from '../../src/agent/model/plan/plan-validation.ts';
import { createToolRegistry } from '../../src/agent/model/tool-registry.ts';
import { said } from '../helpers/words.ts';
import { fakeTool } from './support/fake-tools.ts';

// Issue 37: the limits at their boundaries, a valid plan with rollback steps, and every problem's exact words.
const tools = createToolRegistry([
  fakeTool({ name: 'get_repo', risk: 'read', input: z.object({ repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'expected owner/name') }) }),
  fakeTool({ name: 'comment', risk: 'write', input: z.object({ repo: z.string(), number: z.number().int(), body: z.string() }) }),
  fakeTool({ name: 'label', risk: 'write', input: z.object({ repo: z.string(), labels: z.array(z.string()) }) }),
  fakeTool({ name: 'strict', risk: 'read', input: z.object({ repo: z.string() }).strict() }),
  // Its repo arg is content, not what it acts on: TANDEM_REPOS does not judge it.
  Object.assign(fakeTool({ name: 'note', risk: 'read', input: z.object({ repo: z.string() }) }), { targets: [] as string[] }),
  {
    ...fakeTool({ name: 'batch', risk: 'write', input: z.object({ tools: z.array(z.string()) }) }),
    // A tool's own plan check: a line naming its field, and one that does not.
    checkPlanArgs: (args: Record<string, unknown>) =>
      (args.tools as string[]).includes('nope') ? ['tools.1: no tool nope', 'the list names an unknown tool'] : [],
  },
]);

const plan = (steps: unknown[], extra: Record<string, unknown> = {}) => ({ goal: 'g', confidence: 0.9, steps, ...extra });
const read = (id: string, extra: Record<string, unknown> = {}) => ({ id, title: 't', tool: 'get_repo', args: { repo: 'a/b' }, ...extra });
const reads = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => read(`${prefix}${i}`));
/** Each problem as `code at: words`, or 'valid'. */
const verdict = (input: unknown, options: PlanValidationOptions = { maxSteps: 20 }) => {
  const result = validatePlan(input, tools, options);
  return result.ok ? 'valid' : result.error.map((problem) => `${problem.code} ${said(problemWords(problem))}`);
};

describe('plan limits at their boundaries', () => {
  it('accepts exactly TANDEM_MAX_STEPS steps and refuses one more', () => {
    expect(verdict(plan(reads(3, 's')), { maxSteps: 3 })).toBe('valid');
    expect(verdict(plan(reads(4, 's')), { maxSteps: 3 })).toEqual(['too-many-steps steps: 4 steps is more than the limit of 3 (TANDEM_MAX_STEPS)']);
  });

  it('holds rollback steps to the same limit', () => {
    expect(verdict(plan([read('s0')], { rollback: reads(3, 'r') }), { maxSteps: 3 })).toBe('valid');
    expect(verdict(plan([read('s0')], { rollback: reads(4, 'r') }), { maxSteps: 3 })).toEqual([
      'too-many-steps rollback: 4 rollback steps is more than the limit of 3 (TANDEM_MAX_STEPS)',
    ]);
  });

  it(`accepts ${MAX_QUESTIONS} questions and refuses a sixth`, () => {
    const questions = (count: number) => Array.from({ length: count }, (_, i) => `Question ${i}?`);
    expect(MAX_QUESTIONS).toBe(5);
    expect(verdict(plan([], { questions: questions(5) }))).toBe('valid');
    expect(verdict(plan([], { questions: questions(6) }))).toEqual([
      'too-many-questions questions: 6 questions is more than the limit of 5; ask the few that decide the plan',
    ]);
  });
});

describe('rollback steps', () => {
  const forward = [
    { id: 's1', title: 'comment', tool: 'comment', args: { repo: 'a/b', number: 1, body: 'x' } },
    { id: 's2', title: 'label', tool: 'label', args: { repo: 'a/b', labels: ['x'] }, dependsOn: ['s1'] },
  ];

  it('a valid plan with rollback steps is accepted: one reading the step it undoes and that step’s ancestors, one reading any forward step', () => {
    const rollback = [
      {
        id: 'r1',
        title: 'undo',
        tool: 'comment',
        args: { repo: 'a/b', number: '{{steps.s1.output.number}}', body: 'undo {{steps.s2.output.id}}' },
        undoes: 's2',
      },
      { id: 'r2', title: 'undo', tool: 'comment', args: { repo: 'a/b', number: '{{steps.s2.output.number}}', body: 'x' } },
    ];
    expect(verdict(plan(forward, { rollback }))).toBe('valid');
  });

  it('a rollback step with no undone step may read forward steps only, not another rollback step', () => {
    const rollback = [
      { id: 'r1', title: 'undo', tool: 'get_repo', args: { repo: 'a/b' } },
      { id: 'r2', title: 'undo', tool: 'comment', args: { repo: 'a/b', number: '{{steps.r1.output.number}}', body: 'x' } },
    ];
    expect(verdict(plan(forward, { rollback }))).toEqual([
      'reference-not-ready r2.args.number: {{steps.r1.output.number}} names r1, which is not a forward step of this plan',
    ]);
  });

  it('a forward step may not wait for a rollback step, and an id is used once across both lists', () => {
    expect(verdict(plan([read('s1'), read('s2', { dependsOn: ['r1'] })], { rollback: [read('r1'), read('s1')] }))).toEqual([
      'duplicate-id s1: the id s1 is used more than once',
      'depends-on-rollback s2.dependsOn: r1 is a rollback step; forward steps cannot wait for it',
    ]);
  });
});

describe('args, in exact words', () => {
  it("a tool's own plan check is reported at the field it names, or at the args", () => {
    expect(verdict(plan([{ id: 's1', title: 't', tool: 'batch', args: { tools: ['get_repo', 'nope'] } }]))).toEqual([
      'invalid-args s1.args.tools.1: no tool nope',
      'invalid-args s1.args: the list names an unknown tool',
    ]);
    expect(verdict(plan([{ id: 's1', title: 't', tool: 'batch', args: { tools: ['get_repo'] } }]))).toBe('valid');
  });

  it('a problem with the args as a whole is reported at the args', () => {
    expect(verdict(plan([{ id: 's1', title: 't', tool: 'strict', args: { repo: 'a/b', extra: 1 } }]))).toEqual([
      'invalid-args s1.args: Unrecognized key: "extra"',
    ]);
  });

  it('text around a reference is left to the check at run time where a string is wanted, and refused where a list is', () => {
    expect(verdict(plan([read('s1'), read('s2', { args: { repo: 'acme/{{steps.s1.output.name}}' }, dependsOn: ['s1'] })]))).toBe('valid');
    expect(
      verdict(plan([read('s1'), { id: 's2', title: 't', tool: 'label', args: { repo: 'a/b', labels: 'x {{steps.s1.output.topics}}' }, dependsOn: ['s1'] }])),
    ).toEqual(['reference-in-text s2.args.labels: text around a reference makes a string, but array is expected; use the reference alone']);
  });

  it('steps on a repository off TANDEM_REPOS make the plan invalid', () => {
    expect(verdict(plan([read('s1', { args: { repo: 'evil/x' } })]), { maxSteps: 20, repositories: ['acme/api'] })).toEqual([
      'repo-not-allowed s1.args.repo: evil/x is not on the allow-list: TANDEM_REPOS allows only acme/api',
    ]);
    // The allow-list asks the registered tool which args are targets.
    expect(verdict(plan([{ id: 's1', title: 't', tool: 'note', args: { repo: 'evil/x' } }]), { maxSteps: 20, repositories: ['acme/api'] })).toBe('valid');
  });

  it('a problem inside a list is reported at its item', () => {
    expect(verdict(plan([{ id: 's1', title: 't', tool: 'label', args: { repo: 'a/b', labels: ['x', 5] } }]))).toEqual([
      'invalid-args s1.args.labels.1: Invalid input: expected string, received number',
    ]);
  });

  it('a step whose id is not text is named by its place', () => {
    expect(verdict(plan([{ id: 5, title: 't', tool: 'get_repo', args: { repo: 'a/b' } }]))).toEqual([
      'invalid-shape steps.0.id: Invalid input: expected string, received number',
    ]);
  });

  it('a step that waits for a step listed after it is refused, naming both', () => {
    expect(verdict(plan([read('s1', { dependsOn: ['s2'] }), read('s2'), read('s3', { dependsOn: ['s1', 's2'] })]))).toEqual([
      'depends-on-later s1.dependsOn: s2 comes after s1; list a step after the steps it waits for',
    ]);
    expect(verdict(plan([read('s2'), read('s1', { dependsOn: ['s2'] })]))).toBe('valid');
  });

  it('a cycle is reported at the dependsOn of the step it is found from, with the whole loop', () => {
    expect(verdict(plan([read('s1', { dependsOn: ['s2'] }), read('s2', { dependsOn: ['s1'] })]))).toEqual([
      'cycle s1.dependsOn: the steps wait for each other in a cycle (s1 → s2 → s1)',
    ]);
  });
});
