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
  risk: z.enum(['read', 'write', 'destructive']).default('read'),
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

/** A case as the engine's question: a `tool` (or a step action) makes the resource a step; `schedule` a schedule. */
export function caseQuestion(c: PolicyCase): PolicyQuestion {
  const requester = c.requester ?? c.user;
  const situation = { requester, channel: c.channel, confidence: c.confidence, escalated: c.escalated };
  const base = { user: c.user, groups: c.groups, action: c.action, situation };
  if (c.tool !== undefined || STEP_ACTIONS.has(c.action))
    return {
      ...base,
      resource: {
        kind: 'step',
        step: { id: 's1', tool: c.tool ?? '', risk: c.risk, repository: c.repo.toLowerCase(), channel: c.channel, target: c.target, rollback: c.rollback },
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

export function runCases(engine: PolicyEngine, cases: readonly PolicyCase[]): CaseOutcome[] {
  return cases.map((c) => {
    const decision = engine.decide(caseQuestion(c));
    return { name: c.name, expected: c.expect, got: decision.permitted ? 'permit' : 'deny', rules: decision.rules };
  });
}
