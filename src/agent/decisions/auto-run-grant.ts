/**
 * A version the policy lets run without a click (`auto_run` on every step), as a fact the audit can judge
 * later: the policy's hash, the rules that permitted it and the requester's groups then. Recorded with the
 * auto-approval of a version that changes things, which the risk alone would not allow. Asked of the policy in
 * force by version-permission.ts (`policyAutoRunGrant`), and of a stored policy by the audit.
 */
import type { PolicyEngine, PolicyStep, PolicySituation } from '../ports/policy.ts';

export interface AutoRunGrant {
  policyHash: string;
  rules: readonly string[];
  groups: readonly string[];
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
