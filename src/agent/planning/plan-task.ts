/** `tandem plan "<task>"`: the plan the planner (or a runbook) would make, with nothing stored or run. */
import type { Text } from '../text/text.ts';
import { riskOfTool } from '../decisions/approval-policy.ts';
import type { AgentSettings, RunbookMatcher } from '../context.ts';
import type { Plan } from '../model/plan/plan.ts';
import { planFor, type PlanForRefusalCode } from './plan-for.ts';
import type { LlmClient } from '../ports/llm.ts';
import type { AnyTool, Risk } from '../ports/tool.ts';
import type { Refused } from '../model/refusal.ts';
import { createToolRegistry } from '../model/tool-registry.ts';

export type PlanTaskRefusalCode = PlanForRefusalCode;

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
  const source = await planFor(
    {
      llm: deps.llm,
      tools,
      maxSteps: deps.settings.budgets.maxSteps,
      secrets: deps.settings.secrets,
      repositories: deps.settings.repositories,
      runbooks: deps.runbooks,
    },
    { task: input.task, requester: input.requester ?? 'cli', origin: 'cli' },
  );
  if (!source.ok) return source;
  const [plan, author, authorKind] =
    source.value.by === 'runbook'
      ? [source.value.plan, source.value.runbook.name, 'runbook' as const]
      : [source.value.planned.plan, source.value.planned.author, 'planner' as const];
  const risks = Object.fromEntries([...plan.steps, ...plan.rollback].map((step) => [step.id, riskOfTool(tools, step.tool)])) as Record<string, Risk>;
  return { ok: true, value: { plan, author, authorKind, risks } };
}
