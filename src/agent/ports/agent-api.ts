import type { Result } from '../model/errors.ts';
import type { DecisionRefusalCode } from './plans.ts';
import type {
  ConfirmRefusalCode,
  EditProblem,
  EscalationRefusalCode,
  PlanDecisionRefusalCode,
  Refusal,
  ReassignRefusalCode,
  Refused,
  RevisionRefusalCode,
  WaitClosedCode,
} from '../model/refusal.ts';
import type { Reassigned, WaitForPerson, WaitRef } from './human-input.ts';
import type { Text } from '../text/text.ts';
import type { Conversation, EscalationAnswer, PlanVersionRecord, RunRecord } from './run-store.ts';

/** Why a cancel did not happen. */
export type CancelRefusalCode = 'run-missing' | 'run-ended' | 'not-requester-or-approver' | DecisionRefusalCode;

/** `refused`: the person may not answer or cancel for this run (the policy's words say who may); nothing was recorded. */
/** 'already-answered': the same request, replayed after a crash, had answered already (nothing to say again). */
export type FollowUpOutcome = 'answered' | 'already-answered' | 'cancelled' | 'no-run' | 'ignored' | { refused: Refusal<'not-requester-or-approver', Text> };

export interface StartRunInput {
  task: string;
  requester: string;
  conversation: Conversation;
  origin: RunRecord['origin'];
  /** The request (a Slack event) that asks for the run: asking again with it returns the run it started. */
  requestId?: string;
}

/**
 * What a surface (Slack, the CLI, tests) asks of the agent. Each call returns once its decision is
 * stored; long work (planning, executing) continues in the background and reports through the Surface.
 * A refusal comes back as `{ ok: false, error: { code, message } }`: a code to branch on, and the sentence
 * fit to show the person (a Text: the people and settings in it are data the surface names).
 */
export interface AgentApi {
  startRun(input: StartRunInput): Promise<RunRecord>;
  /** `digest`: the content digest the clicked message showed (its short form); a click for other content is refused like a stale version. */
  decide(input: {
    runId: string;
    planVersion: number;
    userId: string;
    decision: 'approve' | 'reject';
    digest?: string | undefined;
  }): Promise<Refused<void, PlanDecisionRefusalCode, Text>>;
  /**
   * Why Modify on this plan version is refused before its editor opens: it expired (or is past its time to live, and
   * expires now, as an Approve click would); undefined otherwise (the edit itself checks the rest).
   */
  modifyRefusal(input: { runId: string; planVersion: number }): Promise<Refusal<WaitClosedCode, Text> | undefined>;
  /** Checks a person's edit without storing it (for a modal's field errors); each string names the problem. */
  checkEdit(input: { runId: string; planVersion: number; plan: unknown }): Promise<Result<void, EditProblem[]>>;
  editPlan(input: { runId: string; planVersion: number; userId: string; plan: unknown }): Promise<Result<PlanVersionRecord, EditProblem[]>>;
  revisePlan(input: { runId: string; planVersion: number; userId: string; instruction: string }): Promise<Refused<void, RevisionRefusalCode, Text>>;
  /** `digest`: for "Approve anyway", the plan digest its button was drawn for; a click for other content is refused as Approve's is. */
  resolveEscalation(input: {
    escalationId: string;
    userId: string;
    action: EscalationAnswer;
    digest?: string | undefined;
  }): Promise<Refused<void, EscalationRefusalCode, Text>>;
  /** A message in a run's conversation: answers a pending question, or "cancel" stops the run. */
  /** `requestId`: the stored Slack request carrying the message, so a replay of it answers nothing twice. */
  /** `asAnswer`: the words come from an Answer form, so they only ever answer ("stop at staging" is an answer, not a cancel). */
  followUp(input: {
    conversation: Conversation;
    userId: string;
    text: string;
    requestId?: string | undefined;
    asAnswer?: boolean | undefined;
    /** From an Answer form: the question it was opened on; the answer goes to that question or to none. */
    questionId?: string | undefined;
  }): Promise<FollowUpOutcome>;
  cancel(input: { runId: string; userId: string }): Promise<Refused<void, CancelRefusalCode, Text>>;
  /** Confirm or Abort a step whose target was filled at run time from a person's or a model's words. */
  confirmTarget(input: {
    runId: string;
    planVersion: number;
    stepId: string;
    userId: string;
    decision: 'confirm' | 'abort';
  }): Promise<Refused<void, ConfirmRefusalCode, Text>>;
  /**
   * Hands a wait for a person to `to` (Reassign): only someone who may answer it may hand it on, and only
   * to someone who may answer it too (a question's new addressee may answer it for that reason). Whether
   * `to` is a person at all (not a bot, not deactivated) is the surface's to check: it knows its directory.
   */
  reassign(input: { wait: WaitRef; userId: string; to: string }): Promise<Refused<Reassigned, ReassignRefusalCode, Text>>;
  /**
   * Every open wait this person may answer (approvals, questions, escalations, Confirms, and ones handed
   * to them), newest runs first; a direct-message run only for its requester. Which channels they are in
   * is the surface's to judge.
   */
  waitsFor(input: { userId: string }): Promise<WaitForPerson[]>;
  /** At start-up: continue every run that was executing when the process stopped. */
  resume(): Promise<void>;
  /** Stop taking work and let running steps reach a recorded state. */
  shutdown(deadlineMs: number): Promise<void>;
}
