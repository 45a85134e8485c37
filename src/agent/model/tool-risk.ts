/** A tool's risk as the rules count it: a tool nobody registered, or a risk this code does not know, is destructive. */
import type { Risk } from '../ports/tool.ts';

/** A risk this code does not know (a misconfigured MCP tool, a value from a later version) counts as the highest. */
export function knownRisk(value: unknown): Risk {
  return value === 'read' || value === 'write' || value === 'destructive' ? value : 'destructive';
}

/** Whatever can say a tool's risk: the tool registry, or the audit's and runbooks' view of the configured tools. */
export interface RiskSource {
  riskOf(tool: string): Risk | undefined;
}

/** A tool's risk as the policy counts it: a tool nobody registered is destructive, so it never lowers the bar. */
export function riskOfTool(tools: RiskSource, name: string): Risk {
  return knownRisk(tools.riskOf(name));
}
