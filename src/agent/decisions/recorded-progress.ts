/**
 * Under a policy file: each step's approval progress from the approvals recorded so far, for the plan message
 * after a click that counted but did not yet approve the version ("s2 needs two members of @owners (1 of 2
 * approvals)"). Each approver counts in the groups recorded with their click, as the audit counts them.
 */
import type { Plan } from '../model/plan/plan.ts';
import type { PolicyEngine } from '../ports/policy.ts';
import type { ApprovalRecord, RunRecord } from '../ports/run-store.ts';
import type { Risk } from '../ports/tool.ts';
import { isAutoApproval } from './approval-need.ts';
import { policySteps, progressLine, versionProgress } from './policy-approval.ts';
import { versionSituation } from './version-permission.ts';

export function recordedProgressLines(input: {
  engine: PolicyEngine;
  run: Pick<RunRecord, 'requester' | 'conversation'>;
  version: { version: number; plan: Plan };
  digest: string;
  riskOf: (tool: string) => Risk | undefined;
  approvals: readonly ApprovalRecord[];
}): string[] {
  const situation = versionSituation(input.run, input.version, input.digest);
  const people = input.approvals
    .filter(
      (a) => a.planVersion === input.version.version && a.decision === 'approved' && !isAutoApproval(a) && (a.digest === null || a.digest === input.digest),
    )
    .map((a) => ({ userId: a.userId, groups: a.policyGroups ?? [] }));
  return versionProgress(input.engine, policySteps(input.version.plan, input.riskOf, situation.channel), situation, people).steps.map(progressLine);
}
