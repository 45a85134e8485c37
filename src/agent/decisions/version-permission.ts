/**
 * Whether a plan version may run under the policy in force (decision 028): without a click (`auto_run` on
 * every step), on the approvals recorded for it (with its digest now), and, for the plan message, who may
 * still approve each step.
 */
import { shortDigest } from '../model/plan/plan-digest.ts';
import type { Plan } from '../model/plan/plan.ts';
import type { ApprovalRecord, RunRecord } from '../ports/run-store.ts';
import type { Risk } from '../ports/tool.ts';
import { refuse, type Refused } from '../model/refusal.ts';
import { approvalCovers, isAutoApproval, planRisk } from './approval-need.ts';
import { policySteps, progressLines, versionProgress, type PolicyGate } from './policy-approval.ts';
import { autoRunRules, type AutoRunGrant } from './auto-run-grant.ts';

/** What the policy knows of a plan version when it judges one of its steps. */
export function versionSituation(run: Pick<RunRecord, 'requester' | 'conversation'>, version: { version: number; plan: Plan }, digest: string) {
  return { requester: run.requester, channel: run.conversation.channel, confidence: version.plan.confidence, planVersion: version.version, digest };
}

/** A version runs without a click only when `auto_run` is permitted for its requester on every step: the grant, with the rules behind it. */
export async function policyAutoRunGrant(input: {
  gate: PolicyGate;
  run: Pick<RunRecord, 'requester' | 'conversation'>;
  version: { version: number; plan: Plan };
  digest: string;
  riskOf: (tool: string) => Risk | undefined;
}): Promise<AutoRunGrant | undefined> {
  const engine = input.gate.current();
  const situation = versionSituation(input.run, input.version, input.digest);
  const groups = engine.groups.length ? await input.gate.groups.groupsOf(input.run.requester, engine.groups) : [];
  const steps = policySteps(input.version.plan, input.riskOf, situation.channel);
  const rules = autoRunRules(engine, { requester: input.run.requester, groups, steps, situation });
  return rules ? { policyHash: engine.hash, rules, groups } : undefined;
}

export async function policyAllowsAutoRun(input: Parameters<typeof policyAutoRunGrant>[0]): Promise<boolean> {
  return (await policyAutoRunGrant(input)) !== undefined;
}

/** Whether the recorded approvals of a version (with its digest now) let it run. */
export async function policyVersionApproved(input: {
  gate: PolicyGate;
  run: Pick<RunRecord, 'requester' | 'conversation'>;
  version: { version: number; plan: Plan };
  digest: string;
  riskOf: (tool: string) => Risk | undefined;
  approvals: readonly ApprovalRecord[];
}): Promise<Refused<void, 'no-approval' | 'none-covers' | 'content-changed', string>> {
  const approved = input.approvals.filter((approval) => approval.planVersion === input.version.version && approval.decision === 'approved');
  if (approved.length === 0) return refuse('no-approval', `no approval of v${input.version.version} is recorded`);
  const mine = approved.filter((approval) => approval.digest === null || approval.digest === input.digest);
  // Each approval left has a digest, and another one: a null digest binds to the version number only, so it is in `mine`.
  if (mine.length === 0)
    return refuse(
      'content-changed',
      approved
        .map(
          (approval) =>
            `v${input.version.version} was approved by ${approval.userId} with digest ${shortDigest(approval.digest!)}, but its stored content now has digest ${shortDigest(input.digest)}`,
        )
        .join('; '),
    );
  // An auto-run stands for a read-only version (a replan without writes, a runbook's pre-approved read-only steps) or where the policy permits one.
  const auto = mine.some(isAutoApproval);
  if (auto && (planRisk(input.version.plan, input.riskOf) === 'read' || (await policyAllowsAutoRun(input)))) return { ok: true, value: undefined };
  const engine = input.gate.current();
  // A person's approval recorded without a policy hash (before every decision asked the policy, or written behind
  // the decision path's back) counts only if it was checked for this version's need.
  const risk = planRisk(input.version.plan, input.riskOf);
  const checked = mine.filter((approval) => !isAutoApproval(approval) && (approval.policyHash || approvalCovers(approval, risk, input.run.requester).ok));
  const people = await Promise.all(
    [...new Set(checked.map((approval) => approval.userId))].map(async (userId) => ({
      userId,
      groups: engine.groups.length ? await input.gate.groups.groupsOf(userId, engine.groups) : [],
    })),
  );
  const situation = versionSituation(input.run, input.version, input.digest);
  const progress = versionProgress(engine, policySteps(input.version.plan, input.riskOf, situation.channel), situation, people);
  if (progress.approved) return { ok: true, value: undefined };
  return refuse(
    'none-covers',
    progressLines(
      input.version.plan,
      progress.steps.filter((step) => !step.done),
    ).join('; '),
  );
}

/** For the plan message under a policy file: who can approve each step of a version nobody approved yet. */
export function approvalProgressLines(
  gate: PolicyGate,
  run: Pick<RunRecord, 'requester' | 'conversation'>,
  version: { version: number; plan: Plan },
  digest: string,
  riskOf: (tool: string) => Risk | undefined,
): string[] {
  const situation = versionSituation(run, version, digest);
  return progressLines(version.plan, versionProgress(gate.current(), policySteps(version.plan, riskOf, situation.channel), situation, []).steps);
}
