import { planRisk } from '../agent/decisions/approval-policy.ts';
import type { Plan } from '../agent/model/plan/plan.ts';
import type { Risk } from '../agent/ports/tool.ts';

/**
 * Whether a runbook's pre-approval may be honoured: the approval policy rates the plan (rollback steps
 * included) read-only. An unknown tool counts as destructive there, so a misconfigured catalogue fails safe (asks).
 */
export function isReadOnlyPlan(plan: Plan, riskOf: (tool: string) => Risk | undefined): boolean {
  return planRisk(plan, riskOf) === 'read';
}
