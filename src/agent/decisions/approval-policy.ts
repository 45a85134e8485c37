/**
 * The one place that maps risk to who may approve (tools only say their risk):
 * - a read-only plan runs without a click when autoRunReadOnly is on;
 * - any other plan needs an approver's click (ApproverDirectory: anyone when TANDEM_APPROVERS is empty);
 * - a plan with a destructive step needs an approver other than the requester.
 * A decision binds to (run, plan version): a click on a superseded version is refused.
 * With TANDEM_POLICY set, an approval click asks the Cedar policy instead (checkPolicyApprover, decision 028);
 * unset, the functions below are what the built-in policy compiles to (test/policy/builtin-equivalence.test.ts).
 */
import { planChangedMessage } from './decision-refusals.ts';
import type { Plan } from '../model/plan.ts';
import type { ApproverDirectory } from '../ports/approvers.ts';
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
import type { PolicyAction, PolicyResource } from '../ports/policy.ts';

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

export function mayAutoRun(risk: Risk, settings: { autoRunReadOnly: boolean }): boolean {
  return risk === 'read' && settings.autoRunReadOnly;
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

export async function checkApprover(input: {
  need: ApprovalNeed;
  userId: string;
  requester: string;
  approvers: ApproverDirectory;
}): Promise<Refused<void, ApproverRefusalCode, Text>> {
  if (!(await input.approvers.isApprover(input.userId))) {
    return refuse('not-approver', words`Only approvers (${setting('approvers')}) may approve a plan; you are not on the list.`);
  }
  if (input.need === 'approver-not-requester' && input.userId === input.requester) {
    return refuse('requester-may-not-approve-destructive', 'This plan has a destructive step, so an approver other than the person who asked must approve it.');
  }
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
  requester: string;
  approvers: ApproverDirectory;
  policy?: PolicyContext | undefined;
}): Promise<Refused<void, 'not-requester-or-approver', Text>> {
  if (input.policy) {
    const denied = await askedOfPolicy(
      input.policy,
      input.userId,
      REQUESTER_POLICY_ACTIONS[input.action],
      runResource(input.policy),
      REQUESTER_GERUNDS[input.action],
    );
    return denied === undefined ? { ok: true, value: undefined } : refuse('not-requester-or-approver', denied);
  }
  if (input.userId === input.requester || (await input.approvers.isApprover(input.userId))) return { ok: true, value: undefined };
  return refuse('not-requester-or-approver', words`Only ${person(input.requester)} (who asked) or an approver may ${REQUESTER_ACTIONS[input.action]}.`);
}

/** Removing a schedule stops the runs it would start: the person who made it, or an approver. Without a directory, only its maker. */
export async function checkScheduleRemover(input: {
  userId: string;
  createdBy: string;
  approvers: ApproverDirectory | undefined;
  /** Under TANDEM_POLICY: removing is `cancel` on the schedule. */
  policy?: { gate: PolicyGate; schedule: { id: string; channel: string; createdBy: string } } | undefined;
}): Promise<Refused<void, 'not-maker-or-approver', Text>> {
  if (input.policy) {
    const { gate, schedule } = input.policy;
    const context: PolicyContext = { gate, run: { id: schedule.id, requester: schedule.createdBy, conversation: { channel: schedule.channel, threadTs: '' } } };
    const resource: PolicyResource = {
      kind: 'schedule',
      scheduleId: schedule.id,
      channel: schedule.channel,
      createdBy: schedule.createdBy,
      intervalSeconds: 0,
    };
    const denied = await askedOfPolicy(context, input.userId, 'cancel', resource, 'removing this schedule');
    return denied === undefined ? { ok: true, value: undefined } : refuse('not-maker-or-approver', denied);
  }
  if (input.userId === input.createdBy || ((await input.approvers?.isApprover(input.userId)) ?? false)) return { ok: true, value: undefined };
  return refuse(
    'not-maker-or-approver',
    words`Only ${person(input.createdBy)}, who made this schedule, or an approver (${setting('approvers')}) may remove it.`,
  );
}

/** Resolving an escalation decides what runs next, so it takes an approver. */
export async function checkResolver(input: {
  userId: string;
  approvers: ApproverDirectory;
  policy?: PolicyContext | undefined;
  action?: PolicyAction & ('retry' | 'skip' | 'replan' | 'abort');
}): Promise<Refused<void, 'not-approver', Text>> {
  if (input.policy) {
    const action = input.action ?? 'retry';
    const denied = await askedOfPolicy(input.policy, input.userId, action, runResource(input.policy), `answering this escalation with ${action}`, true);
    return denied === undefined ? { ok: true, value: undefined } : refuse('not-approver', denied);
  }
  if (await input.approvers.isApprover(input.userId)) return { ok: true, value: undefined };
  return refuse('not-approver', words`Only approvers (${setting('approvers')}) may decide how an escalated run continues.`);
}

/**
 * Saving a runbook lets later tasks be planned from it without a model, in every channel: only an
 * approver may do it (anyone, when TANDEM_APPROVERS is empty, as for approving).
 */
export async function checkRunbookSaver(input: {
  userId: string;
  approvers: ApproverDirectory;
  policy?: PolicyContext | undefined;
}): Promise<Refused<void, 'not-approver', Text>> {
  if (input.policy) {
    const denied = await askedOfPolicy(input.policy, input.userId, 'save_runbook', runResource(input.policy), 'saving this run as a runbook');
    return denied === undefined ? { ok: true, value: undefined } : refuse('not-approver', denied);
  }
  if (await input.approvers.isApprover(input.userId)) return { ok: true, value: undefined };
  return refuse(
    'not-approver',
    words`Only approvers (${setting('approvers')}) may save a runbook: it plans later tasks without a model. Ask one of them to save it.`,
  );
}

/**
 * Confirming a target filled in at run time lets that step act on it, so it takes what approving the
 * step takes: an approver, and for a destructive step one other than the requester.
 */
export async function checkConfirmer(input: {
  risk: Risk;
  userId: string;
  requester: string;
  approvers: ApproverDirectory;
  /** Under TANDEM_POLICY: the step being confirmed, with its filled-in args. */
  policy?: (PolicyContext & { step: { id: string; tool: string; args: Record<string, unknown> } }) | undefined;
}): Promise<Refused<void, ConfirmerRefusalCode, Text>> {
  if (input.policy) {
    const step = policyStep(input.policy.step, input.risk, input.policy.run.conversation.channel, false);
    const denied = await askedOfPolicy(input.policy, input.userId, 'confirm', { kind: 'step', step }, `confirming what step ${step.id} acts on`);
    return denied === undefined ? { ok: true, value: undefined } : refuse('not-approver', denied);
  }
  if (!(await input.approvers.isApprover(input.userId))) {
    return refuse('not-approver', words`Only approvers (${setting('approvers')}) may confirm what this step acts on; you are not on the list.`);
  }
  if (input.risk === 'destructive' && input.userId === input.requester) {
    return refuse(
      'requester-may-not-confirm-destructive',
      'This step is destructive, so an approver other than the person who asked must confirm what it acts on.',
    );
  }
  return { ok: true, value: undefined };
}

/** What a click under TANDEM_POLICY (decision 028) leaves: the version approved, or counted towards it. */
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
  policyHash?: string;
  policyRules?: readonly string[];
  policyGroups?: readonly string[];
}

/** The approval facts of a click that passed its check (a plan's Approve or an escalation's "approve anyway"), as the store records them. */
export function goAheadApproval(need: ApprovalNeed, policy?: Pick<PolicyApproval, 'policyHash' | 'rules' | 'groups'>): GoAhead {
  return policy ? { need, policyHash: policy.policyHash, policyRules: policy.rules, policyGroups: policy.groups } : { need };
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
}): Promise<Refused<PolicyApproval, 'policy-refused', Text>> {
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
  const mine = steps
    .filter((_, index) => !before.steps[index]?.done)
    .map((step) => engine.decide({ user: me.userId, groups: me.groups, action: 'approve', resource: { kind: 'step', step }, situation }))
    .filter((decision) => decision.permitted);
  if (mine.length === 0) {
    const waiting = steps.find((_, index) => !before.steps[index]?.done) ?? steps[0];
    if (!waiting) return refuse('policy-refused', 'This plan has no steps to approve.');
    const resource = { kind: 'step' as const, step: waiting };
    const denied = engine.decide({ user: me.userId, groups: me.groups, action: 'approve', resource, situation });
    return refuse(
      'policy-refused',
      policyRefusal(engine, { action: 'approve', resource, situation }, denied.rules, `approving step ${waiting.id} (${waiting.tool})`),
    );
  }
  const after = versionProgress(engine, steps, situation, [...people, me]);
  const rules = new Set(mine.flatMap((decision) => decision.rules));
  return { ok: true, value: { approved: after.approved, policyHash: engine.hash, rules: [...rules], groups: me.groups, progress: after } };
}

/** Under TANDEM_POLICY: a version runs without a click only when `auto_run` is permitted for its requester on every step. */
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

/** Under TANDEM_POLICY: whether the recorded approvals of a version (with its digest now) let it run. */
export async function policyVersionApproved(input: {
  gate: PolicyGate;
  run: Pick<RunRecord, 'requester' | 'conversation'>;
  version: { version: number; plan: Plan };
  digest: string;
  riskOf: (tool: string) => Risk | undefined;
  approvals: readonly ApprovalRecord[];
}): Promise<Refused<void, 'no-approval' | 'none-covers', string>> {
  const mine = input.approvals.filter(
    (approval) =>
      approval.planVersion === input.version.version && approval.decision === 'approved' && (approval.digest === null || approval.digest === input.digest),
  );
  if (mine.length === 0) return refuse('no-approval', `no approval of v${input.version.version} with its current content is recorded`);
  if (mine.some(isAutoApproval) && (await policyAllowsAutoRun(input))) return { ok: true, value: undefined };
  const engine = input.gate.current();
  const people = await Promise.all(
    [...new Set(mine.filter((approval) => !isAutoApproval(approval)).map((approval) => approval.userId))].map(async (userId) => ({
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

/** Under TANDEM_POLICY, for the plan message: who can approve each step of a version nobody approved yet. */
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

/** Under TANDEM_POLICY, what a decision on a run asks the policy with: the gate and the run. */
export interface PolicyContext {
  gate: PolicyGate;
  run: Pick<RunRecord, 'id' | 'requester' | 'conversation'>;
}

/** Asks the policy in force; on a denial, the words naming the rule and who may. */
async function askedOfPolicy(
  policy: PolicyContext,
  userId: string,
  action: PolicyAction,
  resource: PolicyResource,
  what: string,
  escalated = false,
): Promise<Text | undefined> {
  const situation = { requester: policy.run.requester, channel: policy.run.conversation.channel, escalated };
  const asked = await askPolicy(policy.gate, { user: userId, action, resource, situation });
  return asked.decision.permitted ? undefined : policyRefusal(asked.engine, { action, resource, situation }, asked.decision.rules, what);
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
