/**
 * Who may answer each kind of wait for a person, asked exactly as the answer itself asks (the policy in
 * force, or the settings): every reader of a Wait (Reassign, "Waiting for you") gets it from here.
 */
import { checkConfirmer, checkPolicyApprover, checkRequesterOrApprover, checkResolver, type PolicyContext } from '../decisions/approval-policy.ts';
import { planDigest } from '../model/plan/plan-digest.ts';
import type { AgentContext } from '../context.ts';
import type { RunRecord } from '../ports/run-store.ts';
import type { AnswerCheck, AnswerRefusal, Answerers, WaitSubject } from './wait.ts';

const policyOf = (ctx: AgentContext, run: RunRecord): PolicyContext => ({ gate: ctx.config.policy, run });
/** The built-in policy (the settings) decides, not a policy file. */
const fromSettings = (ctx: AgentContext) => ctx.config.policy.current().fromSettings === true;

const NO_VERSION: AnswerCheck = { ok: false, error: { code: 'plan-changed', message: 'The plan this waited on is no longer the current one.' } };

/** Whether a click on Approve by this person would count for the run's current version, and if not, why (the rule that refused it). */
async function approveCheck(ctx: AgentContext, run: RunRecord, userId: string): Promise<AnswerCheck> {
  if (run.currentPlanVersion === null) return NO_VERSION;
  const version = await ctx.store.getPlanVersion(run.id, run.currentPlanVersion);
  if (!version) return NO_VERSION;
  const earlier = await ctx.store.listApprovals(run.id);
  const digest = await planDigest(version.plan);
  return asCheck(await checkPolicyApprover({ gate: ctx.config.policy, userId, run, version, digest, riskOf: ctx.config.tools.riskOf, earlier }));
}

/** A check's answer without what it grants: only whether, and the refusal that says why not. */
const asCheck = (result: { ok: true } | { ok: false; error: AnswerRefusal }): AnswerCheck => (result.ok ? { ok: true } : { ok: false, error: result.error });

export function answerersOf(ctx: AgentContext, run: RunRecord, subject: WaitSubject): Answerers {
  if (subject.kind === 'approval') {
    // Whoever's Approve would count for that version (it must still be the current one).
    return {
      addresseeMayAnswer: false,
      mayAnswer: async (userId) => (run.currentPlanVersion === subject.planVersion ? approveCheck(ctx, run, userId) : NO_VERSION),
    };
  }
  if (subject.kind === 'escalation') {
    // For a low-confidence plan going ahead is what counts: its Approve anyway is an approval of the plan, under the
    // settings (a destructive plan needs someone other than its requester) as under a policy file.
    const approving = subject.escalation.kind === 'low-confidence';
    return {
      addresseeMayAnswer: false,
      mayAnswer: async (userId) =>
        approving ? approveCheck(ctx, run, userId) : asCheck(await checkResolver({ userId, action: 'retry', policy: policyOf(ctx, run) })),
    };
  }
  if (subject.kind === 'question') {
    return {
      // Under a policy, answering is the policy's to grant: a hand-over does not go around it.
      addresseeMayAnswer: fromSettings(ctx),
      mayAnswer: async (userId) => asCheck(await checkRequesterOrApprover({ action: 'answer', userId, policy: policyOf(ctx, run) })),
    };
  }
  // A Confirm: who may confirm it (an approver; for a destructive step not the requester).
  const { confirmation } = subject;
  // A rolling-back run waits only on its rollback steps' Confirms.
  const step = { id: confirmation.stepId, tool: confirmation.tool, args: confirmation.targets, rollback: run.status === 'rolling-back' };
  return {
    addresseeMayAnswer: false,
    mayAnswer: async (userId) => asCheck(await checkConfirmer({ risk: confirmation.risk, userId, policy: { ...policyOf(ctx, run), step } })),
  };
}
