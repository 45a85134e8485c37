/**
 * The audit's tool risks for one run. `tandem audit` knows the built-in tools only (it loads no MCP server), and
 * a tool it does not know counts as destructive: a run that used an MCP write tool, approved by its requester,
 * would read as a violation. Each step stored the risk its tool had when the run made it, so a tool the audit's
 * context does not know takes that (the highest, should two steps of one tool disagree).
 */
import type { StepRecord } from '../agent/ports/run-store.ts';
import type { Risk } from '../agent/ports/tool.ts';
import type { AuditContext } from './run-facts.ts';

const ORDER: readonly Risk[] = ['read', 'write', 'destructive'];

export function withStoredRisks(ctx: AuditContext, steps: readonly Pick<StepRecord, 'tool' | 'risk'>[]): AuditContext {
  const stored = new Map<string, Risk>();
  for (const { tool, risk } of steps) {
    const before = stored.get(tool);
    if (before === undefined || ORDER.indexOf(risk) > ORDER.indexOf(before)) stored.set(tool, risk);
  }
  if (stored.size === 0) return ctx;
  return { ...ctx, riskOf: (tool) => ctx.riskOf(tool) ?? stored.get(tool) };
}
