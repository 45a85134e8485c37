/**
 * A plan that fails any check here is never executed. Every problem comes back with a code, the step and
 * field it is about (`s3.args.repo`) and words that say what to fix, so a model or a person can fix it.
 */
import type { z } from 'zod';
import type { Result } from '../errors.ts';
import { PlanSchema, type Plan } from './plan.ts';
import { ancestorsOf, findCycle } from './plan-graph.ts';
import { findReferences } from '../references.ts';
import { checkPlanRepositories, type RepositoryAllowList } from '../repository-allow-list.ts';
import { problem, type PlanProblem } from './plan-problems.ts';
import { setting, words } from '../../text/text.ts';
import type { ToolRegistry } from '../tool-registry.ts';

/** A person answers questions in one reply; more than this is an interrogation, not a plan. */
export const MAX_QUESTIONS = 5;

export interface PlanValidationOptions {
  maxSteps: number;
  /** Steps of earlier plan versions that succeeded: a replanned version may read their outputs. */
  completedSteps?: ReadonlySet<string>;
  /** TANDEM_REPOS: steps on other repositories make the plan invalid. */
  repositories?: RepositoryAllowList;
}

export function validatePlan(input: unknown, tools: ToolRegistry, options: PlanValidationOptions): Result<Plan, PlanProblem[]> {
  const parsed = PlanSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: parsed.error.issues.map((issue) => describeIssue(issue, input)) };
  const plan = parsed.data;
  const problems = [
    ...checkShape(plan, options),
    ...checkGraph(plan),
    ...checkTools(plan, tools),
    ...checkReferences(plan, options),
    ...checkPlanRepositories(plan, options.repositories, (name) => tools.get(name)),
  ];
  return problems.length ? { ok: false, error: problems } : { ok: true, value: plan };
}

/** `steps.2.args.repo` reads better as `s3.args.repo` when the step has an id. */
function describeIssue(issue: z.core.$ZodIssue, input: unknown): PlanProblem {
  const path = issue.path.map(String);
  if ((path[0] === 'steps' || path[0] === 'rollback') && path[1] !== undefined) {
    const list = (input as Record<string, unknown> | null)?.[path[0]];
    const id = Array.isArray(list) ? (list[Number(path[1])] as { id?: unknown } | undefined)?.id : undefined;
    if (typeof id === 'string' && id) return problem('invalid-shape', [id, ...path.slice(2)].join('.'), issue.message);
  }
  return problem('invalid-shape', path.join('.') || 'plan', issue.message);
}

function checkShape(plan: Plan, options: PlanValidationOptions): PlanProblem[] {
  const problems: PlanProblem[] = [];
  if (plan.steps.length === 0 && !plan.questions?.length) problems.push(problem('empty-plan', 'plan', 'a plan needs at least one step or a question'));
  if (plan.steps.length > options.maxSteps)
    problems.push(
      problem('too-many-steps', 'steps', words`${plan.steps.length} steps is more than the limit of ${options.maxSteps} (${setting('max-steps')})`),
    );
  // Rollback steps run too, and every question is posted: neither may grow without bound.
  if (plan.rollback.length > options.maxSteps)
    problems.push(
      problem(
        'too-many-steps',
        'rollback',
        words`${plan.rollback.length} rollback steps is more than the limit of ${options.maxSteps} (${setting('max-steps')})`,
      ),
    );
  if ((plan.questions?.length ?? 0) > MAX_QUESTIONS)
    problems.push(
      problem(
        'too-many-questions',
        'questions',
        `${plan.questions!.length} questions is more than the limit of ${MAX_QUESTIONS}; ask the few that decide the plan`,
      ),
    );
  const seen = new Set<string>();
  for (const step of [...plan.steps, ...plan.rollback]) {
    if (seen.has(step.id)) problems.push(problem('duplicate-id', step.id, `the id ${step.id} is used more than once`));
    seen.add(step.id);
    if (options.completedSteps?.has(step.id))
      problems.push(problem('id-already-ran', step.id, `the id ${step.id} belongs to a step that already ran; use a new id`));
  }
  return problems;
}

function checkGraph(plan: Plan): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const ids = new Set(plan.steps.map((step) => step.id));
  const rollbackIds = new Set(plan.rollback.map((step) => step.id));
  const position = new Map(plan.steps.map((step, index) => [step.id, index]));
  const cycle = findCycle(plan.steps);
  for (const [index, step] of plan.steps.entries()) {
    for (const dep of step.dependsOn) {
      if (rollbackIds.has(dep))
        problems.push(problem('depends-on-rollback', `${step.id}.dependsOn`, `${dep} is a rollback step; forward steps cannot wait for it`));
      else if (!ids.has(dep)) problems.push(problem('unknown-step', `${step.id}.dependsOn`, `unknown step ${dep}`));
      // The plan reads top to bottom as it runs (CONTRACT §3: dependsOn names earlier ids); a cycle is said as one.
      else if (!cycle && position.get(dep)! > index)
        problems.push(problem('depends-on-later', `${step.id}.dependsOn`, `${dep} comes after ${step.id}; list a step after the steps it waits for`));
    }
  }
  for (const step of plan.rollback) {
    if (step.undoes !== undefined && !ids.has(step.undoes)) problems.push(problem('unknown-step', `${step.id}.undoes`, `unknown step ${step.undoes}`));
  }
  if (cycle) problems.push(problem('cycle', `${cycle[0]}.dependsOn`, `the steps wait for each other in a cycle (${cycle.join(' → ')})`));
  return problems;
}

function checkTools(plan: Plan, tools: ToolRegistry): PlanProblem[] {
  const problems: PlanProblem[] = [];
  for (const step of [...plan.steps, ...plan.rollback]) {
    const tool = tools.get(step.tool);
    if (!tool) {
      problems.push(problem('unknown-tool', `${step.id}.tool`, `unknown tool ${step.tool} (known: ${tools.names().join(', ')})`));
      continue;
    }
    problems.push(...checkArgs(step.id, step.args, tool.input));
    problems.push(...(tool.checkPlanArgs?.(step.args, tools) ?? []).map((line) => toolArgsProblem(step.id, line)));
  }
  return problems;
}

/** A tool's own check says `field: what is wrong`. */
function toolArgsProblem(stepId: string, line: string): PlanProblem {
  const colon = line.indexOf(': ');
  return colon === -1
    ? problem('invalid-args', `${stepId}.args`, line)
    : problem('invalid-args', `${stepId}.args.${line.slice(0, colon)}`, line.slice(colon + 2));
}

/**
 * Args must pass the tool's schema. A string holding a reference is checked once it is filled, at
 * execution: a string that is exactly one reference may stand for any type; text around a reference
 * always makes a string, so it is wrong where the schema wants a number or a list.
 */
function checkArgs(stepId: string, args: Record<string, unknown>, schema: z.ZodType): PlanProblem[] {
  const result = schema.safeParse(args);
  if (result.success) return [];
  const referenced = new Map(findReferences(args).references.map((ref) => [ref.at, ref.whole]));
  const problems: PlanProblem[] = [];
  for (const issue of result.error.issues) {
    const at = issue.path.map(String).join('.');
    const whole = referenced.get(at);
    if (whole === true) continue;
    if (whole === false) {
      if (issue.code === 'invalid_type' && issue.expected !== 'string') {
        problems.push(
          problem(
            'reference-in-text',
            `${stepId}.args.${at}`,
            `text around a reference makes a string, but ${issue.expected} is expected; use the reference alone`,
          ),
        );
      }
      continue;
    }
    problems.push(problem('invalid-args', `${stepId}.args${at ? `.${at}` : ''}`, issue.message));
  }
  return problems;
}

/** References must name a step that is sure to have finished first: an ancestor (or, for rollback, the undone step's line). */
function checkReferences(plan: Plan, options: PlanValidationOptions): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const ancestors = ancestorsOf(plan.steps);
  const forward = new Set(plan.steps.map((step) => step.id));
  const completed = options.completedSteps ?? new Set<string>();
  const check = (ownerId: string, args: Record<string, unknown>, allowed: ReadonlySet<string>, why: string) => {
    const { references, malformed } = findReferences(args);
    for (const bad of malformed)
      problems.push(problem('malformed-reference', `${ownerId}.args.${bad.at}`, `${bad.text} is not a reference; write {{steps.<id>.output.<path>}}`));
    for (const ref of references) {
      if (completed.has(ref.stepId)) continue;
      if (!allowed.has(ref.stepId)) problems.push(problem('reference-not-ready', `${ownerId}.args.${ref.at}`, `${ref.raw} names ${ref.stepId}, which ${why}`));
    }
  };
  for (const step of plan.steps) {
    check(step.id, step.args, ancestors.get(step.id) ?? new Set(), `is not among the steps ${step.id} depends on (add it to dependsOn)`);
  }
  for (const step of plan.rollback) {
    const allowed = step.undoes ? new Set([step.undoes, ...(ancestors.get(step.undoes) ?? [])]) : forward;
    check(step.id, step.args, allowed, step.undoes ? `is neither ${step.undoes} nor a step it depends on` : 'is not a forward step of this plan');
  }
  return problems;
}
