/**
 * Why something the agent was asked to do did not happen: a code that code and tests branch on, and
 * beside it the words a person is shown (exactly the sentence they always saw). Codes are string-literal
 * unions per module, so a caller can tell "not an approver" from "the plan changed" without reading prose.
 */
import type { Result } from './errors.ts';
import type { PlanProblemCode } from './plan/plan-problems.ts';
import type { Text } from '../text/text.ts';

export interface Refusal<Code extends string, Message = string> {
  code: Code;
  message: Message;
}

/** `{ ok: false, error: { code, message } }`, typed for a Result of any value. */
export function refuse<Code extends string, Message = string>(code: Code, message: Message): { ok: false; error: Refusal<Code, Message> } {
  return { ok: false, error: { code, message } };
}

export type Refused<T, Code extends string, Message = string> = Result<T, Refusal<Code, Message>>;

/* The refusal codes of people's decisions, as data the ports and every surface speak of (the decisions define what they mean). */
/** Why the store refused a decision: the run or plan moved on, or it was already decided. */
export type DecisionRefusalCode = 'run-missing' | 'plan-changed' | 'not-waiting' | 'escalation-resolved' | 'nothing-to-answer' | 'already-answered';
export type ApproverRefusalCode = 'not-approver' | 'requester-may-not-approve-destructive' | 'policy-refused';
export type ConfirmerRefusalCode = 'not-approver' | 'requester-may-not-confirm-destructive';
/** Why a click on a proposed plan changed nothing: the store's refusals, a version that is gone, or who clicked. */
export type PlanDecisionRefusalCode =
  DecisionRefusalCode | 'version-missing' | ApproverRefusalCode | 'not-requester-or-approver' | 'approval-counted' | WaitClosedCode;
/** An answer to a wait that expired (a plan not approved in time, a Confirm not given in time): nothing was done. */
export type WaitClosedCode = 'wait-expired';
/** Why a revision was not started; `no-planner`: there is no model to revise with. */
export type RevisionRefusalCode = DecisionRefusalCode | 'version-missing' | 'not-requester-or-approver' | 'no-planner' | WaitClosedCode;
/** Why a person's edit was not taken: a refusal, or each thing wrong with the edited plan, every one with its code. */
export type EditProblem = Refusal<DecisionRefusalCode | 'version-missing' | 'not-requester-or-approver' | PlanProblemCode | WaitClosedCode, Text>;
/** Why a Confirm or Abort click changed nothing: the run or the request moved on, or who clicked. */
export type ConfirmRefusalCode =
  | 'run-missing'
  | 'run-ended'
  | 'not-waiting'
  | 'already-decided'
  | 'plan-changed'
  | 'moved-on'
  | ConfirmerRefusalCode
  | 'not-requester-or-approver'
  | WaitClosedCode;
/** Why an escalation click changed nothing: the escalation or run is gone or done, who clicked, an answer not offered, or the store's refusals. */
export type EscalationRefusalCode =
  | DecisionRefusalCode
  | 'escalation-missing'
  | 'already-resolved'
  | 'run-ended'
  | 'not-offered'
  | 'cannot-replan'
  | 'plan-missing'
  | 'not-requester-or-approver'
  | ApproverRefusalCode
  | WaitClosedCode;
/**
 * Why a Reassign changed nothing: the wait is gone or no longer open, the clicker may not answer it, the
 * new person may not answer it either, or it already waits on them.
 */
export type ReassignRefusalCode = 'wait-missing' | 'wait-closed' | 'not-allowed' | 'addressee-may-not-answer' | 'already-addressed' | 'same-person';
