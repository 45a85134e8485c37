/**
 * Who may answer each kind of wait for a person, asked exactly as the answer itself asks (the policy in
 * force, or the settings): Reassign and "Waiting for you" both read it from here.
 */
import { checkConfirmer, checkPolicyApprover, checkRequesterOrApprover, checkResolver, type PolicyContext } from '../decisions/approval-policy.ts';
import { planDigest } from '../model/plan/plan-digest.ts';
import type { AgentContext } from '../context.ts';
import type { ConfirmationRecord, EscalationRecord, QuestionRecord, RunRecord } from '../ports/run-store.ts';
import { waitKey, type WaitKind } from './addressee.ts';

/** An open wait: its run, its kind and key, and who may answer it. */
export interface OpenWait {
  run: RunRecord;
  kind: WaitKind;
  key: string;
  /** Whether this person may answer it on their own standing (not because it was handed to them). */
  mayAnswer(userId: string): Promise<boolean>;
  /** A question handed to someone may be answered by them; other kinds only by who may answer them anyway. */
  addresseeMayAnswer: boolean;
}

const policyOf = (ctx: AgentContext, run: RunRecord): PolicyContext => ({ gate: ctx.config.policy, run });
/** The built-in policy (the settings) decides, not a policy file. */
const fromSettings = (ctx: AgentContext) => ctx.config.policy.current().fromSettings === true;

/** Whether a click on Approve by this person would count for the run's current version. */
export async function mayApprove(ctx: AgentContext, run: RunRecord, userId: string): Promise<boolean> {
  if (run.currentPlanVersion === null) return false;
  const version = await ctx.store.getPlanVersion(run.id, run.currentPlanVersion);
  if (!version) return false;
  const earlier = await ctx.store.listApprovals(run.id);
  const digest = await planDigest(version.plan);
  return (await checkPolicyApprover({ gate: ctx.config.policy, userId, run, version, digest, riskOf: ctx.config.tools.riskOf, earlier })).ok;
}

/** Who may answer a plan's approval: whoever's Approve would count for that version (it must still be the current one). */
export function approvalWait(ctx: AgentContext, run: RunRecord, planVersion: number): OpenWait {
  return {
    run,
    kind: 'approval',
    key: waitKey({ kind: 'approval', planVersion }),
    addresseeMayAnswer: false,
    mayAnswer: async (userId) => run.currentPlanVersion === planVersion && (await mayApprove(ctx, run, userId)),
  };
}

/**
 * Who may answer an escalation: who may resolve it. For a low-confidence plan going ahead is what counts:
 * under the settings that is resolving it, under a policy file approving the plan's steps.
 */
export function escalationWait(ctx: AgentContext, run: RunRecord, escalation: EscalationRecord): OpenWait {
  const action = escalation.kind === 'low-confidence' ? 'skip' : 'retry';
  const approving = escalation.kind === 'low-confidence' && !fromSettings(ctx);
  return {
    run,
    kind: 'escalation',
    key: waitKey({ kind: 'escalation', escalation }),
    addresseeMayAnswer: false,
    mayAnswer: async (userId) => (approving ? mayApprove(ctx, run, userId) : (await checkResolver({ userId, action, policy: policyOf(ctx, run) })).ok),
  };
}

export function questionWait(ctx: AgentContext, run: RunRecord, question: QuestionRecord): OpenWait {
  return {
    run,
    kind: 'question',
    key: waitKey({ kind: 'question', question }),
    // Under a policy, answering is the policy's to grant: a hand-over does not go around it.
    addresseeMayAnswer: fromSettings(ctx),
    mayAnswer: async (userId) => (await checkRequesterOrApprover({ action: 'answer', userId, policy: policyOf(ctx, run) })).ok,
  };
}

/** Who may answer a Confirm: who may confirm it (an approver; for a destructive step not the requester). */
export function confirmWait(ctx: AgentContext, run: RunRecord, confirmation: ConfirmationRecord): OpenWait {
  const step = { id: confirmation.stepId, tool: confirmation.tool, args: confirmation.targets };
  return {
    run,
    kind: 'confirm',
    key: waitKey({ kind: 'confirm', confirmation }),
    addresseeMayAnswer: false,
    mayAnswer: async (userId) => (await checkConfirmer({ risk: confirmation.risk, userId, policy: { ...policyOf(ctx, run), step } })).ok,
  };
}
