/**
 * Who may steer a run, resolve its escalation, save it as a runbook, remove a schedule or confirm a step's
 * target, asked of the policy in force (decision 028). A refusal names the rule and who may; under the
 * built-in policy (TANDEM_POLICY unset) it keeps the sentence people knew from the settings.
 */
import type { RunRecord } from '../ports/run-store.ts';
import type { Risk } from '../ports/tool.ts';
import { refuse, type ConfirmerRefusalCode, type Refused } from '../model/refusal.ts';
import { person, setting, type Text, words } from '../text/text.ts';
import { askPolicy, policyRefusal, policyStep, type PolicyGate } from './policy-approval.ts';
import { settingsDenial } from './settings-denial.ts';
import type { PolicyAction, PolicyResource, PolicySituation } from '../ports/policy.ts';

/** What a decision on a run asks the policy with: the gate and the run. */
export interface PolicyContext {
  gate: PolicyGate;
  run: Pick<RunRecord, 'id' | 'requester' | 'conversation'>;
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

/** The policy a Confirm was permitted under, the rules that permitted it and the confirmer's groups then (recorded for the audit). */
export interface ConfirmGrant {
  hash: string;
  rules: string[];
  groups: string[];
}

/**
 * Confirming a target filled in at run time lets that step act on it, so it takes what approving the
 * step takes: an approver, and for a destructive step one other than the requester.
 */
export async function checkConfirmer(input: {
  risk: Risk;
  userId: string;
  /** The step being confirmed, with its filled-in args, and whether it is a rollback step (a policy may tell them apart). */
  policy: PolicyContext & { step: { id: string; tool: string; args: Record<string, unknown>; rollback: boolean } };
}): Promise<Refused<ConfirmGrant, ConfirmerRefusalCode, Text>> {
  const step = policyStep(input.policy.step, input.risk, input.policy.run.conversation.channel, input.policy.step.rollback);
  const situation = { requester: input.policy.run.requester, channel: input.policy.run.conversation.channel };
  const asked = await askPolicy(input.policy.gate, { user: input.userId, action: 'confirm', resource: { kind: 'step', step }, situation });
  if (asked.decision.permitted) return { ok: true, value: { hash: asked.engine.hash, rules: [...asked.decision.rules], groups: [...asked.groups] } };
  const question = { user: input.userId, groups: asked.groups, action: 'confirm' as const, resource: { kind: 'step' as const, step }, situation };
  if (!asked.engine.fromSettings)
    return refuse('not-approver', policyRefusal(asked.engine, question, asked.decision.rules, 'confirming what this step acts on'));
  const why = settingsDenial(asked.engine, question);
  if (why === 'requester')
    return refuse(
      'requester-may-not-confirm-destructive',
      'This step is destructive, so an approver other than the person who asked must confirm what it acts on.',
    );
  if (why === 'rule') return refuse('not-approver', policyRefusal(asked.engine, question, asked.decision.rules, 'confirming what this step acts on'));
  return refuse('not-approver', words`Only approvers (${setting('approvers')}) may confirm what this step acts on; you are not on the list.`);
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
