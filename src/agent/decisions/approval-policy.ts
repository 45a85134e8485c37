/**
 * The one place every decision asks who may (decision 028): the policy in force, a Cedar policy set. With
 * TANDEM_POLICY unset it is the built-in policy compiled from the settings (approvers, four-eyes for
 * destructive steps, read-only auto-run, the repository allow-list), held equal to the settings' old rules by
 * test/policy/builtin-equivalence.test.ts; its refusals keep the sentences people knew. Tools only say their
 * risk. A decision binds to (run, plan version): a click on a superseded version is refused.
 *
 * The checks live in files by concern; callers import them from here so that the approval policy stays one
 * name in the call graph:
 * - approval-need.ts: a version's risk, what it asks of an approval, and whether a recorded one meets it;
 * - run-action-checks.ts: steering a run, resolving an escalation, saving a runbook, removing a schedule,
 *   confirming a target;
 * - approval-click.ts: an approval click on a plan version;
 * - version-permission.ts: whether a version may run (auto-run, recorded approvals) and who may still approve.
 */
export { approvalCovers, approvalNeed, isAutoApproval, needsReapproval, planRisk, type ApprovalGapCode, type ApprovalNeed } from './approval-need.ts';
export { knownRisk, riskOfTool, type RiskSource } from '../model/tool-risk.ts';
export {
  checkConfirmer,
  checkRequesterOrApprover,
  checkResolver,
  checkRunbookSaver,
  checkScheduleRemover,
  type PolicyContext,
  type RequesterAction,
} from './run-action-checks.ts';
export { checkPolicyApprover, checkVersion, goAheadApproval, type GoAhead, type PolicyApproval } from './approval-click.ts';
export { approvalProgressLines, policyAllowsAutoRun, policyVersionApproved } from './version-permission.ts';
export type { ApproverRefusalCode, ConfirmerRefusalCode } from '../model/refusal.ts';
