/**
 * An approval click asked of the policy in force (decision 028). A decision binds to (run, plan version): a
 * click on a superseded version is refused; otherwise the clicker must be permitted for a step not yet
 * approved, and the version is approved once every step has what its rule needs.
 */
import { planChangedMessage } from './decision-refusals.ts';
import type { Plan } from '../model/plan/plan.ts';
import type { ApprovalRecord, RunRecord } from '../ports/run-store.ts';
import type { Risk } from '../ports/tool.ts';
import { refuse, type ApproverRefusalCode, type Refused } from '../model/refusal.ts';
import { setting, type Text, words } from '../text/text.ts';
import { isAutoApproval, type ApprovalNeed } from './approval-need.ts';
import {
  policyRefusal,
  policySteps,
  progressLines,
  stepName,
  versionProgress,
  type Approver,
  type PolicyGate,
  type VersionProgress,
} from './policy-approval.ts';
import { settingsDenial } from './settings-denial.ts';
import { versionSituation } from './version-permission.ts';
import type { PolicyEngine, PolicyQuestion } from '../ports/policy.ts';

export function checkVersion(run: RunRecord, planVersion: number): Refused<void, 'plan-changed'> {
  if (run.currentPlanVersion !== planVersion) return refuse('plan-changed', planChangedMessage(planVersion, run.currentPlanVersion));
  return { ok: true, value: undefined };
}

/** What an approval click (decision 028) leaves: the version approved, or counted towards it. */
export interface PolicyApproval {
  approved: boolean;
  /** Policy hash and the rules that permitted the clicker's steps: what the decision records. */
  policyHash: string;
  rules: readonly string[];
  /** The groups (of those the policy names) the clicker was in, as the decision asked with them. */
  groups: readonly string[];
  progress: VersionProgress;
}

/** What an approval records of the check it passed: the need, and under a policy its hash and the rules that permitted it. */
export interface GoAhead {
  need: ApprovalNeed;
  policyHash: string;
  policyRules: readonly string[];
  policyGroups: readonly string[];
}

/** The approval facts of a click that passed its check (a plan's Approve or an escalation's "approve anyway"), as the store records them. */
export function goAheadApproval(need: ApprovalNeed, policy: Pick<PolicyApproval, 'policyHash' | 'rules' | 'groups'>): GoAhead {
  return { need, policyHash: policy.policyHash, policyRules: policy.rules, policyGroups: policy.groups };
}

/**
 * The clicker must be permitted for at least one step of the version that is not approved yet; the version is
 * approved once every step (rollback included) has what its rule needs, counting the earlier approvals of this
 * version by other people.
 */
export async function checkPolicyApprover(input: {
  gate: PolicyGate;
  userId: string;
  run: Pick<RunRecord, 'requester' | 'conversation'>;
  version: { version: number; plan: Plan };
  digest: string;
  riskOf: (tool: string) => Risk | undefined;
  earlier: readonly ApprovalRecord[];
}): Promise<Refused<PolicyApproval, ApproverRefusalCode, Text>> {
  const engine = input.gate.current();
  const situation = versionSituation(input.run, input.version, input.digest);
  const steps = policySteps(input.version.plan, input.riskOf, situation.channel);
  const lookUp = async (userId: string): Promise<Approver> => ({
    userId,
    groups: engine.groups.length ? await input.gate.groups.groupsOf(userId, engine.groups) : [],
  });
  const others = input.earlier.filter(
    (approval) =>
      approval.planVersion === input.version.version && approval.decision === 'approved' && !isAutoApproval(approval) && approval.userId !== input.userId,
  );
  const people = await Promise.all([...new Set(others.map((approval) => approval.userId))].map(lookUp));
  const me = await lookUp(input.userId);
  const before = versionProgress(engine, steps, situation, people);
  const already = input.earlier.some(
    (approval) => approval.planVersion === input.version.version && approval.decision === 'approved' && approval.userId === input.userId,
  );
  if (already) {
    const waiting = versionProgress(engine, steps, situation, [...people, me]).steps.filter((step) => !step.done);
    return refuse(
      'policy-refused',
      `You already approved v${input.version.version}; it still waits for someone else: ${progressLines(input.version.plan, waiting).join('; ')}.`,
    );
  }
  // This person's answer for each step still waiting, asked once: what they may approve, and by which rules.
  const answers = steps
    .filter((_, index) => !before.steps[index]?.done)
    .map((step) => ({ step, decision: engine.decide({ user: me.userId, groups: me.groups, action: 'approve', resource: { kind: 'step', step }, situation }) }));
  const mine = answers.map((answer) => answer.decision).filter((decision) => decision.permitted);
  // A forbid rule that names this person for a step (four-eyes, no self-approval) refuses the whole click: their
  // approval of the other steps would count towards a version they may not let run.
  const denial = answers.find((answer) => !answer.decision.permitted && answer.decision.rules.length > 0) ?? (mine.length === 0 ? answers[0] : undefined);
  if (mine.length === 0 && !denial) return refuse('policy-refused', 'This plan has no steps to approve.');
  if (denial)
    return approvalRefusal(
      engine,
      { user: me.userId, groups: me.groups, action: 'approve', resource: { kind: 'step', step: denial.step }, situation },
      denial.decision.rules,
      stepName(input.version.plan, denial.step.id),
    );
  const after = versionProgress(engine, steps, situation, [...people, me]);
  const rules = new Set(mine.flatMap((decision) => decision.rules));
  return { ok: true, value: { approved: after.approved, policyHash: engine.hash, rules: [...rules], groups: me.groups, progress: after } };
}

/** Why an approval click is refused: the rule and who may, or under the built-in policy the sentences people knew. */
function approvalRefusal(engine: PolicyEngine, question: PolicyQuestion, rules: readonly string[], name: string): Refused<never, ApproverRefusalCode, Text> {
  const ruleWords = () => policyRefusal(engine, question, rules, `approving ${name}`);
  if (!engine.fromSettings) return refuse('policy-refused', ruleWords());
  const why = settingsDenial(engine, question);
  if (why === 'requester')
    return refuse('requester-may-not-approve-destructive', 'This plan has a destructive step, so an approver other than the person who asked must approve it.');
  if (why === 'rule') return refuse('policy-refused', ruleWords());
  return refuse('not-approver', words`Only approvers (${setting('approvers')}) may approve a plan; you are not on the list.`);
}
