/**
 * Approval under a policy (decision 028). A plan version is approved when each of its steps, rollback
 * included, is permitted for people who approved it: some permit rule for the step counts at least its
 * `@approvals` distinct approvers it permits (one, unless the rule says more), and no forbid rule
 * matched them. The plan message shows, per step, who may approve it and how many approvals are still
 * needed; a refusal names the rule and who may, never a setting.
 */
import type { Plan, PlanStep } from '../model/plan/plan.ts';
import type { GroupDirectory, PolicyAction, PolicyEngine, PolicyQuestion, PolicyRule, PolicySituation, PolicyStep } from '../ports/policy.ts';
import type { Risk } from '../ports/tool.ts';

/** The policy in force now (it may be reloaded between two decisions) and who is in the groups it names. */
export interface PolicyGate {
  current(): PolicyEngine;
  groups: GroupDirectory;
}

/** One approver as the policy sees them: the person and the groups (of those the policy names) they are in. */
export interface Approver {
  userId: string;
  groups: readonly string[];
}

export interface StepProgress {
  stepId: string;
  rollback: boolean;
  /** The rule that comes closest to permitting the step, with who it permits; undefined when no rule could. */
  rule: PolicyRule | undefined;
  /** Distinct approvers that rule permits so far. */
  have: number;
  need: number;
  done: boolean;
  /** The rules that permitted it, once done. */
  permittedBy: readonly string[];
}

export interface VersionProgress {
  approved: boolean;
  steps: readonly StepProgress[];
  /** The rule ids that permitted the version, over all its steps (what a decision records). */
  rules: readonly string[];
}

/** A plan step as the policy's `Step`: its tool, risk (unknown counts as destructive), repository (lower case) and target. */
export function policyStep(step: Pick<PlanStep, 'id' | 'tool' | 'args'>, risk: Risk | undefined, channel: string, rollback: boolean): PolicyStep {
  const args = step.args as Record<string, unknown>;
  // A value still holding a reference to an earlier output is not known at approval: "" (the repository allow-list and a Confirm judge it once filled).
  const text = (value: unknown) => (typeof value === 'number' || (typeof value === 'string' && !value.includes('{{')) ? String(value) : '');
  const target = ['number', 'tag', 'ref', 'workflow', 'channel', 'runId'].map((name) => text(args[name])).find(Boolean) ?? '';
  return {
    id: step.id,
    tool: step.tool,
    risk: risk === 'read' || risk === 'write' ? risk : 'destructive',
    repository: text(args['repo']).toLowerCase(),
    channel,
    target,
    rollback,
  };
}

export function policySteps(plan: Plan, riskOf: (tool: string) => Risk | undefined, channel: string): PolicyStep[] {
  return [
    ...plan.steps.map((step) => policyStep(step, riskOf(step.tool), channel, false)),
    ...plan.rollback.map((step) => policyStep(step, riskOf(step.tool), channel, true)),
  ];
}

/** Each step's progress towards approval by these approvers, under `engine`. */
export function versionProgress(
  engine: PolicyEngine,
  steps: readonly PolicyStep[],
  situation: PolicySituation,
  approvers: readonly Approver[],
  action: Extract<PolicyAction, 'approve' | 'confirm'> = 'approve',
): VersionProgress {
  const rulesById = new Map(engine.rules.map((rule) => [rule.id, rule]));
  const progress = steps.map((step): StepProgress => {
    const resource = { kind: 'step' as const, step };
    const counted = new Map<string, Set<string>>();
    for (const approver of approvers) {
      const decision = engine.decide({ user: approver.userId, groups: approver.groups, action, resource, situation });
      if (!decision.permitted) continue;
      for (const id of decision.rules) counted.set(id, (counted.get(id) ?? new Set()).add(approver.userId));
    }
    const permittedBy = [...counted].filter(([id, people]) => people.size >= (rulesById.get(id)?.approvals ?? 1)).map(([id]) => id);
    if (permittedBy.length > 0) {
      const rule = rulesById.get(permittedBy[0]!);
      const need = rule?.approvals ?? 1;
      return { stepId: step.id, rollback: step.rollback, rule, have: need, need, done: true, permittedBy };
    }
    // Not yet: the candidate rule nearest to done (most approvals counted, then fewest needed).
    const candidates = engine.whoMay({ action, resource, situation });
    const scored = candidates
      .map((rule) => ({ rule, have: counted.get(rule.id)?.size ?? 0 }))
      .sort((a, b) => b.have / b.rule.approvals - a.have / a.rule.approvals || a.rule.approvals - b.rule.approvals);
    const best = scored[0];
    return { stepId: step.id, rollback: step.rollback, rule: best?.rule, have: best?.have ?? 0, need: best?.rule.approvals ?? 1, done: false, permittedBy: [] };
  });
  return { approved: progress.every((step) => step.done), steps: progress, rules: [...new Set(progress.flatMap((step) => step.permittedBy))] };
}

/** Asks the policy in force, looking up only the groups it names. */
export async function askPolicy(gate: PolicyGate, question: Omit<PolicyQuestion, 'groups'>) {
  const engine = gate.current();
  const groups = engine.groups.length ? await gate.groups.groupsOf(question.user, engine.groups) : [];
  return { engine, groups, decision: engine.decide({ ...question, groups }) };
}

/**
 * Why a person may not: the forbid rule that matched, or the rule that would permit and whom it names.
 * "Merging into acme/api needs a member of @api-owners (rule `api-merges`)".
 */
export function policyRefusal(engine: PolicyEngine, question: Omit<PolicyQuestion, 'user' | 'groups'>, forbidding: readonly string[], what: string): string {
  const rules = new Map(engine.rules.map((rule) => [rule.id, rule]));
  const forbid = forbidding.map((id) => rules.get(id)).find((rule) => rule?.effect === 'forbid');
  if (forbid) return `${forbid.reason ?? capitalised(what)}: it needs ${forbid.who} (rule \`${forbid.id}\`).`;
  const candidates = engine.whoMay(question);
  if (candidates.length === 0) return `${capitalised(what)} is not permitted to anyone by the policy in force.`;
  return candidates.map((rule) => `${rule.reason ?? capitalised(what)} needs ${rule.who} (rule \`${rule.id}\`)`).join('; or ') + '.';
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * A step as the plan message shows it, for the words a person reads: "step 2 (“Post it”)", "rollback step 1
 * (“Close the issue”)". Ids (s2, r1) are the plan's own names, which the message never shows.
 */
export function stepName(plan: Pick<Plan, 'steps' | 'rollback'>, stepId: string): string {
  const forward = plan.steps.findIndex((step) => step.id === stepId);
  const rollback = plan.rollback.findIndex((step) => step.id === stepId);
  const [label, step] =
    forward >= 0 ? [`step ${forward + 1}`, plan.steps[forward]!] : rollback >= 0 ? [`rollback step ${rollback + 1}`, plan.rollback[rollback]!] : [];
  if (!label || !step) return 'a step';
  const title = step.title.trim();
  return title ? `${label} (“${title.length > 80 ? `${title.slice(0, 79)}…` : title}”)` : label;
}

/** "step 3 (“Merge it”) needs a member of @api-owners (1 of 2 approvals)", one line per step, named as the plan shows it. */
export function progressLines(plan: Pick<Plan, 'steps' | 'rollback'>, steps: readonly StepProgress[]): string[] {
  return steps.map((step) => progressLine(step, stepName(plan, step.stepId)));
}

function progressLine(step: StepProgress, name: string): string {
  if (step.done) return `${name}: approved (rule \`${step.permittedBy.join('`, `')}\`)`;
  if (!step.rule) return `${name}: no rule permits anyone to approve it`;
  const count = step.need > 1 ? ` (${step.have} of ${step.need} approvals)` : '';
  return `${name} needs ${step.rule.who}${count}`;
}
