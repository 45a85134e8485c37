import type { Plan } from '../agent/plan.ts';
import type { Risk } from '../agent/ports/tool.ts';

/**
 * Whether a runbook's pre-approval may be honoured: every step and rollback step uses a tool known to be
 * read-only. An unknown tool counts as not read-only, so a misconfigured catalogue fails safe (asks).
 */
export function isReadOnlyPlan(plan: Plan, riskOf: (tool: string) => Risk | undefined): boolean {
  return [...plan.steps, ...plan.rollback].every((step) => riskOf(step.tool) === 'read');
}
