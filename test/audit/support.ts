/** The audit's view of a test's fake tools, and a helper that audits every run the store holds. */
import { auditRuns } from '../../src/audit/audit.ts';
import type { AuditContext, Violation } from '../../src/audit/run-facts.ts';
import type { RunStore } from '../../src/agent/ports/run-store.ts';
import type { AnyTool } from '../../src/agent/ports/tool.ts';
import { policyMadeInTests } from '../helpers/policy-gate.ts';

export function auditContextOf(tools: readonly AnyTool[], approvers: readonly string[] = []): AuditContext {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    riskOf: (name) => byName.get(name)?.risk,
    toolOf: (name) => byName.get(name),
    isApprover: (userId) => (approvers.length === 0 ? undefined : approvers.includes(userId)),
    // The built-in policies the tests' agents decided under (the product reads them from the store by hash).
    policyOf: policyMadeInTests,
  };
}

/** What `tandem audit` would print for this store: every violation of every run. */
export async function auditViolations(store: RunStore, tools: readonly AnyTool[], approvers: readonly string[] = [], runId?: string): Promise<Violation[]> {
  const result = await auditRuns(store, auditContextOf(tools, approvers), runId ? { runId } : {});
  if ('missing' in result) throw new Error(`no run ${result.missing}`);
  return result.violations;
}
