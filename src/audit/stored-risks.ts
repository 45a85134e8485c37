/**
 * The audit's tool risks for one run. `tandem audit` knows the built-in tools only (it loads no MCP server), and
 * a tool it does not know counts as destructive: a run that used an MCP write tool, approved by its requester,
 * would read as a violation. Each step stored the risk its tool had when the run made it, so a tool the audit's
 * context does not know takes that (the highest, should two steps of one tool disagree).
 *
 * A rollback step stores its row only when the rollback runs, so a tool named only by rollback steps that never ran
 * has no stored risk. Its version's approvals do: each recorded what the approval policy required of the version
 * (`need`), judged with the tool's real risk. A version approved as needing only an approver had no destructive step
 * then, so such a tool takes `write` (the highest risk that is not destructive); with no such record it still counts as
 * destructive.
 */
import type { ApprovalRecord, PlanVersionRecord, StepRecord } from '../agent/ports/run-store.ts';
import type { Risk } from '../agent/ports/tool.ts';
import type { AuditContext } from './run-facts.ts';

const ORDER: readonly Risk[] = ['read', 'write', 'destructive'];
/** Needs an approval records only for a version with no destructive step (approval-need.ts). */
const NOT_DESTRUCTIVE_NEEDS: readonly (ApprovalRecord['need'] & string)[] = ['anyone', 'approver'];

export interface StoredRiskFacts {
  steps: readonly Pick<StepRecord, 'tool' | 'risk'>[];
  versions?: readonly Pick<PlanVersionRecord, 'version' | 'plan'>[];
  approvals?: readonly Pick<ApprovalRecord, 'planVersion' | 'need'>[];
}

export function withStoredRisks(ctx: AuditContext, facts: StoredRiskFacts): AuditContext {
  const stored = new Map<string, Risk>();
  for (const { tool, risk } of facts.steps) {
    const before = stored.get(tool);
    if (before === undefined || ORDER.indexOf(risk) > ORDER.indexOf(before)) stored.set(tool, risk);
  }
  for (const tool of toolsOfVersionsApprovedAsNotDestructive(facts)) if (ctx.riskOf(tool) === undefined && !stored.has(tool)) stored.set(tool, 'write');
  if (stored.size === 0) return ctx;
  return { ...ctx, riskOf: (tool) => ctx.riskOf(tool) ?? stored.get(tool) };
}

/**
 * Every tool (forward and rollback) of a version whose approval or rejection recorded a need below a second person's:
 * the agent records `need` from the plan's risk as its tools then had it (plan-decisions.ts), under any policy.
 */
function toolsOfVersionsApprovedAsNotDestructive({ versions = [], approvals = [] }: StoredRiskFacts): Set<string> {
  const tools = new Set<string>();
  for (const version of versions) {
    const judged = approvals.some((a) => a.planVersion === version.version && a.need !== null && NOT_DESTRUCTIVE_NEEDS.includes(a.need));
    if (judged) for (const step of [...version.plan.steps, ...version.plan.rollback]) tools.add(step.tool);
  }
  return tools;
}
