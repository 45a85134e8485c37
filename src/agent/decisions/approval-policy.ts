/**
 * The one place every decision asks who may (decision 028): the policy in force, a Cedar policy set. With
 * TANDEM_POLICY unset it is the built-in policy compiled from the settings (approvers, four-eyes for
 * destructive steps, read-only auto-run, the repository allow-list), held equal to the settings' old rules by
 * test/policy/builtin-equivalence.test.ts; its refusals keep the sentences people knew. Tools only say their
 * risk. A decision binds to (run, plan version): a click on a superseded version is refused.
 */
import { planChangedMessage } from './decision-refusals.ts';
import { shortDigest } from '../model/plan/plan-digest.ts';
import type { Plan } from '../model/plan/plan.ts';
import type { ApprovalRecord, RunRecord } from '../ports/run-store.ts';
import type { Risk } from '../ports/tool.ts';
import { refuse, type Refused } from '../model/refusal.ts';
import { person, setting, type Text, words } from '../text/text.ts';
import {
  askPolicy,
  policyRefusal,
  policyStep,
  policySteps,
  progressLine,
  versionProgress,
  type Approver,
  type PolicyGate,
  type VersionProgress,
} from './policy-approval.ts';
import type { PolicyAction, PolicyEngine, PolicyQuestion, PolicyResource, PolicySituation, PolicyStep } from '../ports/policy.ts';

/** 'anyone' is no longer asked for (every click needs an approver); approvals recorded before say it. */
export type ApprovalNeed = 'anyone' | 'approver' | 'approver-not-requester';

const RANK: Record<Risk, number> = { read: 0, write: 1, destructive: 2 };

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

/** The highest risk among the plan's steps, rollback steps included (they run too). */
export function planRisk(plan: Plan, riskOf: (tool: string) => Risk | undefined): Risk {
  let highest: Risk = 'read';
  for (const step of [...plan.steps, ...plan.rollback]) {
    const risk = riskOfTool({ riskOf }, step.tool);
    if (RANK[risk] > RANK[highest]) highest = risk;
  }
  return highest;
}

/** Only approvers may approve, whatever the plan does; destructive work also needs a second person. */
export function approvalNeed(risk: Risk): ApprovalNeed {
  return risk === 'destructive' ? 'approver-not-requester' : 'approver';
}

/** True when a new plan version adds work that a person must approve again (a replan with writes). */
export function needsReapproval(risk: Risk): boolean {
  return risk !== 'read';
}

export function checkVersion(run: RunRecord, planVersion: number): Refused<void, 'plan-changed'> {
  if (run.currentPlanVersion !== planVersion) return refuse('plan-changed', planChangedMessage(planVersion, run.currentPlanVersion));
  return { ok: true, value: undefined };
}

const NEED_RANK: Record<ApprovalNeed, number> = { anyone: 0, approver: 1, 'approver-not-requester': 2 };

/** Who may not approve this version: not an approver, or (four-eyes) the requester of destructive work. */
export type { ApproverRefusalCode, ConfirmerRefusalCode } from '../model/refusal.ts';
import type { ApproverRefusalCode, ConfirmerRefusalCode } from '../model/refusal.ts';

/** Approvals recorded before the `via` column existed name their rule in the user id. */
export const isAutoApproval = (approval: Pick<ApprovalRecord, 'via' | 'userId'>) => approval.via === 'auto' || /^(tandem|runbook):/.test(approval.userId);

/**
 * Whether a recorded approval lets a version of this risk run: an auto-run only where the policy
 * allows one (every auto-run rule is for read-only versions); a person's approval only if it was
 * checked against a need at least this version's, and for destructive work not by the requester.
 */
/** Why a recorded approval does not let a version run. */
export type ApprovalGapCode = 'rejected' | 'auto-run-not-read-only' | 'checked-for-lower-need' | 'approved-only-by-requester';

export function approvalCovers(approval: ApprovalRecord, risk: Risk, requester: string): Refused<void, ApprovalGapCode> {
  if (approval.decision !== 'approved') return refuse('rejected', `v${approval.planVersion} was rejected by ${approval.userId}`);
  const need = approvalNeed(risk);
  if (isAutoApproval(approval))
    return risk === 'read'
      ? { ok: true, value: undefined }
      : refuse('auto-run-not-read-only', `v${approval.planVersion} has ${risk} steps but ran without a person's approval (${approval.userId})`);
  // Rows from before the need was recorded were checked by the same rule for an approver.
  const checked: ApprovalNeed = approval.need ?? 'approver';
  if (NEED_RANK[checked] < NEED_RANK[need])
    return refuse('checked-for-lower-need', `${approval.userId} was checked as "${checked}" but v${approval.planVersion} needs "${need}"`);
  if (need === 'approver-not-requester' && approval.userId === requester)
    return refuse('approved-only-by-requester', `v${approval.planVersion} is destructive and was approved only by its requester ${requester}`);
  return { ok: true, value: undefined };
}

/** What a run's requester, or an approver, may do for it, and nobody else. */
export type RequesterAction = 'reject' | 'edit' | 'revise' | 'answer' | 'cancel' | 'abort';

const REQUESTER_ACTIONS: Record<RequesterAction, string> = {
  reject: 'reject this plan',
  edit: 'edit this plan',
  revise: 'ask for a revision of this plan',
  answer: "answer this run's question",
  cancel: 'cancel this run',
  abort: 'abort this run',
};

/**
 * Stopping or steering a run (reject, edit, revise, answer its question, cancel, abort instead of
 * confirming): the person who asked may always withdraw or steer their own request; otherwise approvers only.
 */
export async function checkRequesterOrApprover(input: {
  action: RequesterAction;
  userId: string;
  policy: PolicyContext;
}): Promise<Refused<void, 'not-requester-or-approver', Text>> {
  const { policy, action } = input;
  const denied = await askedOfPolicy(policy, input.userId, REQUESTER_POLICY_ACTIONS[action], runResource(policy), {
    what: REQUESTER_GERUNDS[action],
    settingsWords: words`Only ${person(policy.run.requester)} (who asked) or an approver may ${REQUESTER_ACTIONS[action]}.`,
  });
  return denied === undefined ? { ok: true, value: undefined } : refuse('not-requester-or-approver', denied);
}

/** Removing a schedule stops the runs it would start: `cancel` on the schedule (by default its maker, or an approver). */
export async function checkScheduleRemover(input: {
  userId: string;
  policy: { gate: PolicyGate; schedule: { id: string; channel: string; createdBy: string } };
}): Promise<Refused<void, 'not-maker-or-approver', Text>> {
  const { gate, schedule } = input.policy;
  const context: PolicyContext = { gate, run: { id: schedule.id, requester: schedule.createdBy, conversation: { channel: schedule.channel, threadTs: '' } } };
  const resource: PolicyResource = {
    kind: 'schedule',
    scheduleId: schedule.id,
    channel: schedule.channel,
    createdBy: schedule.createdBy,
    intervalSeconds: 0,
  };
  const denied = await askedOfPolicy(context, input.userId, 'cancel', resource, {
    what: 'removing this schedule',
    settingsWords: words`Only ${person(schedule.createdBy)}, who made this schedule, or an approver (${setting('approvers')}) may remove it.`,
  });
  return denied === undefined ? { ok: true, value: undefined } : refuse('not-maker-or-approver', denied);
}

/** Resolving an escalation decides what runs next, so it takes an approver. */
export async function checkResolver(input: {
  userId: string;
  policy: PolicyContext;
  action?: PolicyAction & ('retry' | 'skip' | 'replan' | 'abort');
}): Promise<Refused<void, 'not-approver', Text>> {
  const action = input.action ?? 'retry';
  const denied = await askedOfPolicy(input.policy, input.userId, action, runResource(input.policy), {
    what: `answering this escalation with ${action}`,
    settingsWords: words`Only approvers (${setting('approvers')}) may decide how an escalated run continues.`,
    escalated: true,
  });
  return denied === undefined ? { ok: true, value: undefined } : refuse('not-approver', denied);
}

/**
 * Saving a runbook lets later tasks be planned from it without a model, in every channel: only an
 * approver may do it (anyone, when TANDEM_APPROVERS is empty, as for approving).
 */
export async function checkRunbookSaver(input: { userId: string; policy: PolicyContext }): Promise<Refused<void, 'not-approver', Text>> {
  const denied = await askedOfPolicy(input.policy, input.userId, 'save_runbook', runResource(input.policy), {
    what: 'saving this run as a runbook',
    settingsWords: words`Only approvers (${setting('approvers')}) may save a runbook: it plans later tasks without a model. Ask one of them to save it.`,
  });
  return denied === undefined ? { ok: true, value: undefined } : refuse('not-approver', denied);
}

/**
 * Confirming a target filled in at run time lets that step act on it, so it takes what approving the
 * step takes: an approver, and for a destructive step one other than the requester.
 */
export async function checkConfirmer(input: {
  risk: Risk;
  userId: string;
  /** The step being confirmed, with its filled-in args. */
  policy: PolicyContext & { step: { id: string; tool: string; args: Record<string, unknown> } };
}): Promise<Refused<void, ConfirmerRefusalCode, Text>> {
  const step = policyStep(input.policy.step, input.risk, input.policy.run.conversation.channel, false);
  const situation = { requester: input.policy.run.requester, channel: input.policy.run.conversation.channel };
  const asked = await askPolicy(input.policy.gate, { user: input.userId, action: 'confirm', resource: { kind: 'step', step }, situation });
  if (asked.decision.permitted) return { ok: true, value: undefined };
  const question = { user: input.userId, groups: asked.groups, action: 'confirm' as const, resource: { kind: 'step' as const, step }, situation };
  if (!asked.engine.fromSettings)
    return refuse('not-approver', policyRefusal(asked.engine, question, asked.decision.rules, `confirming what step ${step.id} acts on`));
  const why = settingsDenial(asked.engine, question);
  if (why === 'requester')
    return refuse(
      'requester-may-not-confirm-destructive',
      'This step is destructive, so an approver other than the person who asked must confirm what it acts on.',
    );
  if (why === 'rule') return refuse('not-approver', policyRefusal(asked.engine, question, asked.decision.rules, `confirming what step ${step.id} acts on`));
  return refuse('not-approver', words`Only approvers (${setting('approvers')}) may confirm what this step acts on; you are not on the list.`);
}

/**
 * Why the built-in policy denied someone, in the terms of the settings it was compiled from: only for being
 * the requester (four-eyes), a rule other than the approver list (the repository allow-list), or not being
 * an approver at all.
 */
function settingsDenial(engine: PolicyEngine, question: PolicyQuestion): 'requester' | 'rule' | 'not-approver' {
  const asSomeoneElse = engine.decide({ ...question, situation: { ...question.situation, requester: NOT_THE_REQUESTER } });
  if (asSomeoneElse.permitted) return 'requester';
  return asSomeoneElse.rules.length > 0 ? 'rule' : 'not-approver';
}

/** A requester no Slack user id can be: the question asked as if the clicker had not asked for the run. */
const NOT_THE_REQUESTER = '\u0000not-the-requester';

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

/** What the policy knows of a plan version when it judges one of its steps. */
function versionSituation(run: Pick<RunRecord, 'requester' | 'conversation'>, version: { version: number; plan: Plan }, digest: string) {
  return { requester: run.requester, channel: run.conversation.channel, confidence: version.plan.confidence, planVersion: version.version, digest };
}

/**
 * An approval click asked of the policy in force: the clicker must be permitted for at least one step
 * of the version that is not approved yet; the version is approved once every step (rollback included)
 * has what its rule needs, counting the earlier approvals of this version by other people.
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
      `You already approved v${input.version.version}; it still waits for someone else: ${waiting.map(progressLine).join('; ')}.`,
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
    );
  const after = versionProgress(engine, steps, situation, [...people, me]);
  const rules = new Set(mine.flatMap((decision) => decision.rules));
  return { ok: true, value: { approved: after.approved, policyHash: engine.hash, rules: [...rules], groups: me.groups, progress: after } };
}

/** Why an approval click is refused: the rule and who may, or under the built-in policy the sentences people knew. */
function approvalRefusal(engine: PolicyEngine, question: PolicyQuestion, rules: readonly string[]): Refused<never, ApproverRefusalCode, Text> {
  const step = (question.resource as { step: PolicyStep }).step;
  const ruleWords = () => policyRefusal(engine, question, rules, `approving step ${step.id} (${step.tool})`);
  if (!engine.fromSettings) return refuse('policy-refused', ruleWords());
  const why = settingsDenial(engine, question);
  if (why === 'requester')
    return refuse('requester-may-not-approve-destructive', 'This plan has a destructive step, so an approver other than the person who asked must approve it.');
  if (why === 'rule') return refuse('policy-refused', ruleWords());
  return refuse('not-approver', words`Only approvers (${setting('approvers')}) may approve a plan; you are not on the list.`);
}

/** A version runs without a click only when `auto_run` is permitted for its requester on every step. */
export async function policyAllowsAutoRun(input: {
  gate: PolicyGate;
  run: Pick<RunRecord, 'requester' | 'conversation'>;
  version: { version: number; plan: Plan };
  digest: string;
  riskOf: (tool: string) => Risk | undefined;
}): Promise<boolean> {
  const engine = input.gate.current();
  const situation = versionSituation(input.run, input.version, input.digest);
  const groups = engine.groups.length ? await input.gate.groups.groupsOf(input.run.requester, engine.groups) : [];
  return policySteps(input.version.plan, input.riskOf, situation.channel).every(
    (step) => engine.decide({ user: input.run.requester, groups, action: 'auto_run', resource: { kind: 'step', step }, situation }).permitted,
  );
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
  if (mine.length === 0)
    return refuse(
      'content-changed',
      approved
        .map(
          (approval) =>
            `v${input.version.version} was approved by ${approval.userId} with digest ${shortDigest(approval.digest ?? '')}, but its stored content now has digest ${shortDigest(input.digest)}`,
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
    progress.steps
      .filter((step) => !step.done)
      .map(progressLine)
      .join('; '),
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
  return versionProgress(gate.current(), policySteps(version.plan, riskOf, situation.channel), situation, []).steps.map(progressLine);
}

/** What a decision on a run asks the policy with: the gate and the run. */
export interface PolicyContext {
  gate: PolicyGate;
  run: Pick<RunRecord, 'id' | 'requester' | 'conversation'>;
}

/**
 * Asks the policy in force; on a denial, the words naming the rule and who may (`what` is being done), or under
 * the built-in policy the sentence people knew (`settingsWords`).
 */
async function askedOfPolicy(
  policy: PolicyContext,
  userId: string,
  action: PolicyAction,
  resource: PolicyResource,
  words: { what: string; settingsWords: Text; escalated?: boolean },
): Promise<Text | undefined> {
  const situation: PolicySituation = { requester: policy.run.requester, channel: policy.run.conversation.channel, escalated: words.escalated ?? false };
  const asked = await askPolicy(policy.gate, { user: userId, action, resource, situation });
  if (asked.decision.permitted) return undefined;
  return asked.engine.fromSettings ? words.settingsWords : policyRefusal(asked.engine, { action, resource, situation }, asked.decision.rules, words.what);
}

const runResource = (policy: PolicyContext): PolicyResource => ({
  kind: 'run',
  runId: policy.run.id,
  requester: policy.run.requester,
  channel: policy.run.conversation.channel,
});

const REQUESTER_GERUNDS: Record<RequesterAction, string> = {
  reject: 'rejecting this plan',
  edit: 'editing this plan',
  revise: 'asking for a revision of this plan',
  answer: "answering this run's question",
  cancel: 'cancelling this run',
  abort: 'aborting this run',
};

const REQUESTER_POLICY_ACTIONS: Record<RequesterAction, PolicyAction> = {
  reject: 'cancel',
  edit: 'replan',
  revise: 'replan',
  answer: 'answer',
  cancel: 'cancel',
  abort: 'abort',
};
