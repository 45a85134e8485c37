/**
 * A version the policy lets run without a click (`auto_run` on every step), as a fact the audit can judge
 * later: the policy's hash, the rules that permitted it and the requester's groups then. Recorded with the
 * auto-approval of a version that changes things, which the risk alone would not allow.
 */
import type { PolicyEngine, PolicyStep, PolicySituation } from '../ports/policy.ts';
import type { PolicyGate } from './policy-approval.ts';

export interface AutoRunGrant {
  policyHash: string;
  rules: readonly string[];
  groups: readonly string[];
}

/** The grant when `auto_run` is permitted on every step for the requester, else undefined. */
export async function autoRunGrant(
  gate: PolicyGate,
  input: { requester: string; steps: readonly PolicyStep[]; situation: PolicySituation },
): Promise<AutoRunGrant | undefined> {
  const engine = gate.current();
  const groups = engine.groups.length ? await gate.groups.groupsOf(input.requester, engine.groups) : [];
  const rules = autoRunRules(engine, { ...input, groups });
  return rules ? { policyHash: engine.hash, rules, groups } : undefined;
}

/** The permit rules behind `auto_run` on every step, or undefined when some step is not permitted. */
export function autoRunRules(
  engine: PolicyEngine,
  input: { requester: string; groups: readonly string[]; steps: readonly PolicyStep[]; situation: PolicySituation },
): readonly string[] | undefined {
  const rules = new Set<string>();
  for (const step of input.steps) {
    const decision = engine.decide({
      user: input.requester,
      groups: input.groups,
      action: 'auto_run',
      resource: { kind: 'step', step },
      situation: input.situation,
    });
    if (!decision.permitted) return undefined;
    for (const rule of decision.rules) rules.add(rule);
  }
  return [...rules];
}
