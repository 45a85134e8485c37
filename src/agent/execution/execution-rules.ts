/**
 * The executor's rules as one pure function: given what is known of an executing run (its step
 * records, the steps this driver runs, attempts, tokens, budgets and the time), which actions come
 * next, including which steps start together with a step's success. The driver in run-driver.ts asks them in
 * one place (from its loop, and when a step's success waits to be stored), performs them and asks again;
 * nothing here reads a clock or a store, so the rules can be read, and tested, as tables of states.
 */
import { dispatch } from './ready-steps.ts';
import type { GraphStep } from '../model/plan/plan-graph.ts';
import type { StepStatus } from '../ports/run-store.ts';
import { executionLimits, wallClock, type BudgetSnapshot, type Budgets } from '../model/budgets.ts';
import type { Text } from '../text/text.ts';

/** While steps are starting, the token total is read again once it is older than this. */
export const TOKENS_STALE_MS = 250;

/** What the rules need of a step record. */
export interface StepView {
  status: StepStatus;
  leaseOwner: string | null;
  leaseUntil: Date | null;
}

export interface ExecutorState {
  /** The plan's steps, in plan order. */
  steps: readonly GraphStep[];
  /** This plan version's forward step records by step id; a step without one counts as pending. */
  records: ReadonlyMap<string, StepView>;
  /** Steps this driver started and has not seen finish. */
  inFlight: ReadonlySet<string>;
  /**
   * Failed or uncertain steps of this version already handed to a person (each has its own open
   * escalation): they wait for their answer while every step that does not depend on them goes on.
   */
  escalated: ReadonlySet<string>;
  /** A failure the supervisor answers with a new plan: nothing new starts, and the run is replanned once idle. */
  replanning: string | null;
  /** The failed steps that new plan answers: the one that asked for it, and failed reads since. */
  replanAnswers: ReadonlySet<string>;
  /** The driver was told to drain or halt. */
  stopping: boolean;
  /** Forward step attempts started in this run, all plan versions. */
  attempts: number;
  tokens: number;
  /** When `tokens` was read from the store; null before the first read. */
  tokensReadAt: Date | null;
  replans: number;
  /**
   * Where the run's clock counts from: its first approval (budgets.ts `runClockStart`), not its mention, moved on
   * by the time the run could only wait for people (`runClockAt`), as the pass's opening read it.
   */
  runStartedAt: Date;
  now: Date;
  budgets: Budgets;
  concurrency: number;
  /** This replica's name, as step leases record it. */
  owner: string;
  /** No other replica shares the store: a running step nobody here runs is from before a restart. */
  soleOwner: boolean;
  /**
   * Steps this driver runs whose success is known (the tool answered, the check passed) and not stored yet:
   * each waits for the rules to say which steps start with it, claimed in the same write (joined-claims.ts).
   * They are still in `inFlight`. None when absent.
   */
  finishing?: ReadonlySet<string>;
}

/** How a run ends when this driver has nothing left to start or wait for. */
export type Settlement =
  | { status: 'succeeded' }
  /** A step waits for a person. */
  | { status: 'paused' }
  /** A failed step asked for a new plan for the remaining work (see `replanning`). */
  | { status: 'replan'; stepId: string }
  /** A budget ran out. */
  | { status: 'failed'; reason: Text }
  /** Nothing to record (steps were cancelled, or the run moved on elsewhere). */
  | { status: 'none' };

export type ExecutorAction =
  /** A step succeeded and nothing starts with it: store its success. */
  | { kind: 'finish'; stepId: string }
  /**
   * A step succeeded and its success lets `dependants` start at once (its dependants, or a step that waited
   * for its slot): store its success together with their claims, in one write, and start them.
   */
  | { kind: 'finish-and-start'; stepId: string; dependants: string[] }
  /** A step its driver stopped before it ended (left cancelled while the run goes on): it runs again. */
  | { kind: 'requeue'; stepId: string }
  | { kind: 'skip'; stepId: string; reason: string }
  /** Read the token total from the store, then ask again. */
  | { kind: 'read-tokens' }
  | { kind: 'start'; stepId: string }
  /**
   * A step failed or is uncertain and nobody was told yet: the supervisor decides at once (an escalation of
   * its own, or a new plan), whatever other steps do or wait for.
   */
  | { kind: 'hand-over'; stepId: string }
  /** A budget ran out: cancel running steps and fail the run. */
  | { kind: 'stop'; reason: Text }
  /** Wait for a running step to finish, a wake, or the time to look at the store again. */
  | { kind: 'wait' }
  /** Another replica runs a step of this run: look again after a while. */
  | { kind: 'wait-foreign' }
  /** A step is left running by an owner that is gone (or by this process before a restart): settle it first. */
  | { kind: 'recover-foreign' }
  /** The driver is stopping: start nothing, let running steps finish, settle nothing. */
  | { kind: 'drain' }
  | { kind: 'settle'; outcome: Settlement };

export function nextActions(state: ExecutorState): ExecutorAction[] {
  const finishing = state.finishing?.size ? state.steps.find((step) => state.finishing!.has(step.id)) : undefined;
  // Before a drain too: a running step's end is stored whatever the driver does next.
  if (finishing) return finishNext(state, finishing.id);
  if (state.stopping) return [{ kind: 'drain' }];
  const interrupted = interruptedSteps(state);
  if (interrupted.length) return interrupted.map((stepId) => ({ kind: 'requeue', stepId }));
  const decision = dispatch(state.steps, (stepId) => state.records.get(stepId)?.status);
  const skips: ExecutorAction[] = decision.skip.map(({ stepId, reason }) => ({ kind: 'skip', stepId, reason }));
  const handOvers = unhandedFailures(state).map((stepId): ExecutorAction => ({ kind: 'hand-over', stepId }));
  if (handOvers.length) return [...skips, ...handOvers];
  const startable = state.replanning ? [] : decision.ready.filter((stepId) => !state.inFlight.has(stepId));
  if (startable.length && tokensStale(state)) return [...skips, { kind: 'read-tokens' }];
  const snapshot = budgetSnapshot(state);
  // Only the wall clock stops a run that has nothing to start: its running steps are cancelled.
  const budgetStop = (startable.length ? executionLimits(state.budgets) : wallClock(state.budgets))(snapshot);
  if (budgetStop) return [...skips, { kind: 'stop', reason: budgetStop }];
  const starts = chooseStarts(state, startable, snapshot);
  if (state.inFlight.size + starts.length > 0) return [...skips, ...starts.map((stepId) => ({ kind: 'start' as const, stepId })), { kind: 'wait' }];
  const skipped = new Set(decision.skip.map((skip) => skip.stepId));
  return [...skips, whenIdle(state, skipped)];
}

/**
 * A step succeeded and its success is not stored yet: what starts with it is what the rules would start once it
 * is stored (counted succeeded, no longer running), so that a chain pays one write per step. A token total too
 * old to start on is read first. Anything else the rules would do (a skip, a hand-over, another success) waits
 * for the next ask.
 */
function finishNext(state: ExecutorState, stepId: string): ExecutorAction[] {
  const record = state.records.get(stepId);
  if (!record || state.stopping) return [{ kind: 'finish', stepId }];
  const inFlight = new Set(state.inFlight);
  inFlight.delete(stepId);
  const records = new Map(state.records).set(stepId, { ...record, status: 'succeeded' });
  const after = nextActions({ ...state, finishing: undefined, records, inFlight });
  if (after.some((action) => action.kind === 'read-tokens')) return [{ kind: 'read-tokens' }];
  const dependants = after.flatMap((action) => (action.kind === 'start' ? [action.stepId] : []));
  return [dependants.length ? { kind: 'finish-and-start', stepId, dependants } : { kind: 'finish', stepId }];
}

/** How the run ends as things stand (the skips in `skipped` counted as done). */
export function settlement(state: Pick<ExecutorState, 'steps' | 'records' | 'replanning'>, skipped: ReadonlySet<string> = new Set()): Settlement {
  if (state.replanning) return { status: 'replan', stepId: state.replanning };
  const statuses = state.steps.map((step) => (skipped.has(step.id) ? 'skipped' : (state.records.get(step.id)?.status ?? 'pending')));
  if (statuses.every((status) => status === 'succeeded' || status === 'skipped')) return { status: 'succeeded' };
  // A question, a Confirm or an escalated failure: the run waits for people, each wait on its own.
  if (statuses.some((status) => status === 'waiting' || FAILED.has(status))) return { status: 'paused' };
  return { status: 'none' };
}

const FAILED: ReadonlySet<StepStatus> = new Set(['failed', 'uncertain']);

/**
 * Failed or uncertain steps, in plan order, that no person was told of yet, but those a new plan on its way
 * answers. A failure that ends while the new plan waits for running steps is handed over too: the supervisor
 * leaves a failed read to that plan, and a failure that needs a person (an uncertain change, a failed write)
 * reaches one instead of being folded into the new plan unseen.
 */
export function unhandedFailures(state: Pick<ExecutorState, 'steps' | 'records' | 'inFlight' | 'escalated' | 'replanAnswers'>): string[] {
  return state.steps
    .filter((step) => !state.replanAnswers.has(step.id))
    .filter((step) => FAILED.has(state.records.get(step.id)?.status ?? 'pending') && !state.inFlight.has(step.id) && !state.escalated.has(step.id))
    .map((step) => step.id);
}

/**
 * Cancelled steps of a run that is still executing, that this driver does not run. A person's cancel or
 * abort ends the run before its steps are cancelled, and a spent budget ends it right after (this driver
 * stops asking), so such a step was stopped by its driver alone: a shutdown that ran out of time, a peer
 * taking the run over, a process that died between a recovery's two writes or before a budget's end was
 * stored (the budget then stops the run again). Skipping its dependants would leave the run nothing to do.
 */
function interruptedSteps(state: ExecutorState): string[] {
  return state.steps.filter((step) => state.records.get(step.id)?.status === 'cancelled' && !state.inFlight.has(step.id)).map((step) => step.id);
}

function tokensStale(state: ExecutorState): boolean {
  return !state.tokensReadAt || state.now.getTime() - state.tokensReadAt.getTime() > TOKENS_STALE_MS;
}

function budgetSnapshot(state: ExecutorState): BudgetSnapshot {
  return { stepAttempts: state.attempts, replans: state.replans, tokens: state.tokens, runStartedAt: state.runStartedAt, now: state.now };
}

/** Ready steps in plan order, up to the concurrency limit, and none past the attempt that spends the budget. */
function chooseStarts(state: ExecutorState, startable: readonly string[], snapshot: BudgetSnapshot): string[] {
  const room = Math.max(1, state.concurrency) - state.inFlight.size;
  const chosen: string[] = [];
  for (const stepId of startable) {
    if (chosen.length >= room) break;
    chosen.push(stepId);
    if (executionLimits(state.budgets)({ ...snapshot, stepAttempts: state.attempts + chosen.length })) break;
  }
  return chosen;
}

/** Nothing of ours runs and nothing can start: a step another process claimed is waited for or recovered; otherwise the run settles. */
function whenIdle(state: ExecutorState, skipped: ReadonlySet<string>): ExecutorAction {
  const foreign = [...state.records.values()].filter((step) => step.status === 'running');
  if (!foreign.length) return { kind: 'settle', outcome: settlement(state, skipped) };
  // Its owner died if the lease ran out (or it is ours from before): settle it under the reconcile-or-escalate rule.
  const orphaned = (step: StepView) => !step.leaseUntil || step.leaseUntil <= state.now || step.leaseOwner === state.owner;
  return state.soleOwner || foreign.some(orphaned) ? { kind: 'recover-foreign' } : { kind: 'wait-foreign' };
}
