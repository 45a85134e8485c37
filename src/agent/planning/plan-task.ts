/** `tandem plan "<task>"`: the plan the planner (or a runbook) would make, with nothing stored or run. */
import { joined, type Text, words } from '../text/text.ts';
import { riskOfTool } from '../decisions/approval-policy.ts';
import type { AgentSettings, RunbookMatcher } from '../context.ts';
import type { Plan } from '../model/plan.ts';
import { problemWords } from '../model/plan-problems.ts';
import { validatePlan } from '../model/plan-validation.ts';
import { makePlan, type PlannerRefusalCode } from './planner.ts';
import { NO_MODEL_MESSAGE } from './plan-run.ts';
import type { LlmClient } from '../ports/llm.ts';
import type { AnyTool, Risk } from '../ports/tool.ts';
import { refuse, type Refused } from '../model/refusal.ts';
import { createToolRegistry } from '../model/tool-registry.ts';

/** A matching runbook's plan no longer validates, or the planner's own refusals. */
export type PlanTaskRefusalCode = 'invalid-runbook' | PlannerRefusalCode;

export interface PlanTaskResult {
  plan: Plan;
  author: string;
  authorKind: 'planner' | 'runbook';
  risks: Record<string, Risk>;
}

export async function planTask(
  deps: { llm: LlmClient; tools: AnyTool[]; settings: Pick<AgentSettings, 'budgets' | 'secrets' | 'repositories'>; runbooks?: RunbookMatcher },
  input: { task: string; requester?: string },
): Promise<Refused<PlanTaskResult, PlanTaskRefusalCode, Text>> {
  const tools = createToolRegistry(deps.tools);
  const risksOf = (plan: Plan) =>
    Object.fromEntries([...plan.steps, ...plan.rollback].map((step) => [step.id, riskOfTool(tools, step.tool)])) as Record<string, Risk>;
  const runbook = deps.runbooks?.match(input.task);
  if (runbook) {
    const checked = validatePlan(runbook.plan, tools, { maxSteps: deps.settings.budgets.maxSteps, repositories: deps.settings.repositories });
    if (!checked.ok) return refuse('invalid-runbook', words`Runbook ${runbook.name} is invalid: ${joined(checked.error.map(problemWords), '; ')}`);
    return { ok: true, value: { plan: checked.value, author: runbook.name, authorKind: 'runbook', risks: risksOf(checked.value) } };
  }
  if (!deps.llm.has('planner')) return refuse('no-planner', NO_MODEL_MESSAGE);
  const planned = await makePlan(
    { llm: deps.llm, tools, maxSteps: deps.settings.budgets.maxSteps, secrets: deps.settings.secrets, repositories: deps.settings.repositories },
    { task: input.task, requester: input.requester ?? 'cli', origin: 'cli' },
  );
  if (!planned.ok) return planned;
  return { ok: true, value: { plan: planned.value.plan, author: planned.value.author, authorKind: 'planner', risks: risksOf(planned.value.plan) } };
}
