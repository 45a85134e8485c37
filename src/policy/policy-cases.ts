/**
 * `tandem policy test <cases.yaml>`: each case says who does what to which step, run or schedule, and
 * whether the policy should permit it. A team runs this in its own CI before a rule change lands.
 */
import { z } from 'zod';
import { parse } from 'yaml';
import { POLICY_ACTIONS, type PolicyEngine, type PolicyQuestion } from '../agent/ports/policy.ts';

const user = z.string().min(1);

export const PolicyCaseSchema = z.object({
  name: z.string().min(1),
  user,
  groups: z.array(z.string()).default([]),
  action: z.enum(POLICY_ACTIONS),
  requester: user.optional(),
  channel: z.string().default('C0'),
  tool: z.string().optional(),
  // Only for a tool the CLI does not know (an MCP tool): a built-in tool's risk is its own, as the bot sees it.
  risk: z.enum(['read', 'write', 'destructive']).optional(),
  repo: z.string().default(''),
  target: z.string().default(''),
  rollback: z.boolean().default(false),
  escalated: z.boolean().default(false),
  confidence: z.number().min(0).max(1).default(1),
  createdBy: user.optional(),
  intervalSeconds: z.number().int().positive().default(3600),
  expect: z.enum(['permit', 'deny']),
});
export type PolicyCase = z.infer<typeof PolicyCaseSchema>;

export const PolicyCasesSchema = z.object({ cases: z.array(PolicyCaseSchema).min(1) });

const STEP_ACTIONS = new Set(['approve', 'confirm', 'auto_run']);

export type ToolRisk = 'read' | 'write' | 'destructive';

/**
 * The risk the bot would see for the case's step. A built-in tool has its own (a case that says otherwise is
 * refused rather than answered for a step that cannot exist); another tool (an MCP tool) needs the case to say it;
 * a case naming no tool is a read step unless it says otherwise.
 */
export function caseRisk(c: PolicyCase, riskOf: (tool: string) => ToolRisk | undefined): { ok: true; value: ToolRisk } | { ok: false; error: string } {
  if (c.tool === undefined) return { ok: true, value: c.risk ?? 'read' };
  const own = riskOf(c.tool);
  if (own === undefined)
    return c.risk ? { ok: true, value: c.risk } : { ok: false, error: `risk: ${c.tool} is not a built-in tool, so say its risk (read, write or destructive)` };
  if (c.risk !== undefined && c.risk !== own) return { ok: false, error: `risk: ${c.tool} is ${own}, not ${c.risk}` };
  return { ok: true, value: own };
}

/** A case as the engine's question: a `tool` (or a step action) makes the resource a step; `schedule` a schedule. */
export function caseQuestion(c: PolicyCase, risk: ToolRisk): PolicyQuestion {
  const requester = c.requester ?? c.user;
  const situation = { requester, channel: c.channel, confidence: c.confidence, escalated: c.escalated };
  const base = { user: c.user, groups: c.groups, action: c.action, situation };
  if (c.tool !== undefined || STEP_ACTIONS.has(c.action))
    return {
      ...base,
      resource: {
        kind: 'step',
        step: { id: 's1', tool: c.tool ?? '', risk, repository: c.repo.toLowerCase(), channel: c.channel, target: c.target, rollback: c.rollback },
      },
    };
  if (c.action === 'schedule' || c.createdBy !== undefined)
    return {
      ...base,
      resource: { kind: 'schedule', scheduleId: 'schedule', channel: c.channel, createdBy: c.createdBy ?? c.user, intervalSeconds: c.intervalSeconds },
    };
  return { ...base, resource: { kind: 'run', runId: 'run', requester, channel: c.channel } };
}

export interface CaseOutcome {
  name: string;
  expected: 'permit' | 'deny';
  got: 'permit' | 'deny';
  rules: readonly string[];
}

export function parseCases(text: string) {
  return PolicyCasesSchema.safeParse(parse(text));
}

/** Each case decided; `risks` is each case's risk from `caseRisk`, in order. */
export function runCases(engine: PolicyEngine, cases: readonly PolicyCase[], risks: readonly ToolRisk[]): CaseOutcome[] {
  return cases.map((c, index) => {
    const decision = engine.decide(caseQuestion(c, risks[index]!));
    return { name: c.name, expected: c.expect, got: decision.permitted ? 'permit' : 'deny', rules: decision.rules };
  });
}
