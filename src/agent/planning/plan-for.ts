/**
 * Where a task's plan comes from, decided in one place for runs and for `tandem plan`: the plan of a
 * runbook that matches the task (checked like any plan), otherwise the planner model, otherwise a
 * refusal that says how to configure one.
 */
import type { RunbookMatcher } from '../context.ts';
import type { Plan } from '../model/plan/plan.ts';
import { problemWords } from '../model/plan/plan-problems.ts';
import { validatePlan } from '../model/plan/plan-validation.ts';
import { refuse, type Refused } from '../model/refusal.ts';
import { joined, setting, type Text, words } from '../text/text.ts';
import { makePlan, type PlannedResult, type PlannerDeps, type PlannerRefusalCode } from './planner.ts';
import type { PlanRequest } from './planner-prompt.ts';

/** Said the same on every surface: the CLI names the variables, the thread names them in words (so no "X=…" that only reads as a variable). */
export const NO_MODEL_MESSAGE = words`I have no model to plan this with and no runbook matches it. To plan free-form tasks, an operator configures a model: set ${setting('planner-model')} (for example openai:gpt-4o) and ${setting('model-key')}.`;

export type PlanSource = { by: 'runbook'; plan: Plan; runbook: { name: string; preApproved?: boolean } } | { by: 'planner'; planned: PlannedResult };

/** A matching runbook's plan no longer validates, or the planner's own refusals. */
export type PlanForRefusalCode = 'invalid-runbook' | PlannerRefusalCode;

/**
 * `runbooks: false` when the task is planned again with the requester's answers to the planner's
 * questions: only the planner asked them, so only the planner hears the answers.
 */
export async function planFor(
  deps: PlannerDeps & { runbooks?: RunbookMatcher | undefined },
  request: PlanRequest,
  options: { runbooks: boolean } = { runbooks: true },
): Promise<Refused<PlanSource, PlanForRefusalCode, Text>> {
  const runbook = options.runbooks ? deps.runbooks?.match(request.task) : undefined;
  if (runbook) {
    const checked = validatePlan(runbook.plan, deps.tools, { maxSteps: deps.maxSteps, repositories: deps.repositories });
    if (!checked.ok)
      return refuse(
        'invalid-runbook',
        words`Runbook ${runbook.name} matches this task but its plan is invalid: ${joined(checked.error.map(problemWords), '; ')}`,
      );
    return { ok: true, value: { by: 'runbook', plan: checked.value, runbook } };
  }
  if (!deps.llm.has('planner')) return refuse('no-planner', NO_MODEL_MESSAGE);
  const planned = await makePlan(deps, request);
  return planned.ok ? { ok: true, value: { by: 'planner', planned: planned.value } } : planned;
}
