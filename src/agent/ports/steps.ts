import type { Risk } from './tool.ts';
import type { EarlierChange } from '../model/step-change.ts';
import type { RunStatus, StepStatus } from '../model/statuses.ts';
import type { RunEventInput } from '../model/run-events.ts';

export type { StepStatus } from '../model/statuses.ts';

export type StepKind = 'forward' | 'rollback';

export interface StepRecord {
  runId: string;
  planVersion: number;
  stepId: string;
  kind: StepKind;
  title: string;
  tool: string;
  risk: Risk;
  dependsOn: string[];
  /** The args as the plan says them, before references are filled. */
  plannedArgs: Record<string, unknown>;
  status: StepStatus;
  attempt: number;
  output: Record<string, unknown> | null;
  error: StepErrorRecord | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  leaseOwner: string | null;
  leaseUntil: Date | null;
}

export interface StepErrorRecord {
  message: string;
  transient?: boolean;
  uncertain?: boolean;
  code?: string;
  url?: string;
  /** A Retry's attempt failed before its call went through: what an earlier attempt made stands (model/step-change.ts). */
  madeBefore?: EarlierChange;
}

export interface StepAttemptRecord {
  runId: string;
  planVersion: number;
  stepId: string;
  attempt: number;
  /** The args actually sent to the tool, references filled. */
  executedArgs: Record<string, unknown>;
  idempotencyKey: string;
  status: 'running' | 'succeeded' | 'failed' | 'uncertain' | 'cancelled';
  output: Record<string, unknown> | null;
  error: StepErrorRecord | null;
  startedAt: Date;
  finishedAt: Date | null;
}

/** One attempt at one step of one plan version. */
export type StepAttemptKey = Pick<StepRecord, 'runId' | 'planVersion' | 'stepId' | 'attempt'>;

/** A step as the plan makes it, before anything ran. */
export type NewStep = Pick<StepRecord, 'stepId' | 'kind' | 'title' | 'tool' | 'risk' | 'dependsOn' | 'plannedArgs'>;

export interface ClaimStepInput {
  runId: string;
  planVersion: number;
  stepId: string;
  owner: string;
  leaseMs: number;
  executedArgs: Record<string, unknown>;
  /** When set, the claim also records `step-started` (with the attempt it took), in the same write. */
  started?: { kind: StepKind; tool: string };
}

export interface FinishStepInput {
  runId: string;
  planVersion: number;
  stepId: string;
  attempt: number;
  status: 'succeeded' | 'failed' | 'uncertain' | 'cancelled' | 'waiting';
  output?: Record<string, unknown> | null;
  error?: StepErrorRecord | null;
  /** Recorded in the same write, and only if the finish stores (the step's end event). */
  events?: readonly RunEventInput[];
}

/** A plan version's steps and each attempt at them; a claim or a finish is won by exactly one caller. */
export interface StepsPort {
  /** Inserts steps as `pending`; steps that already exist are left as they are. */
  createSteps(runId: string, planVersion: number, steps: NewStep[]): Promise<void>;
  listSteps(runId: string, planVersion?: number): Promise<StepRecord[]>;
  /**
   * pending → running, attempt + 1, an attempt row with the executed args. Exactly one caller wins;
   * the others get undefined.
   */
  claimStep(input: ClaimStepInput): Promise<StepRecord | undefined>;
  /** Ends the running attempt `attempt`; false if the step is no longer that attempt (someone else moved it). */
  finishStep(input: FinishStepInput): Promise<boolean>;
  /**
   * finishStep and then, only if it stored, claimStep for each of `claims` (each under the claim's own
   * conditions), in one transaction: a dependant's start costs no commit of its own. `claimed` holds the
   * claims that won, with their `started` events after the finish's events.
   */
  finishStepAndClaim(finish: FinishStepInput, claims: readonly ClaimStepInput[]): Promise<{ finished: boolean; claimed: StepRecord[] }>;
  /** For steps not running: skip, cancel, reset to pending (retry), or settle a waiting / uncertain step. */
  setStepStatus(input: {
    runId: string;
    planVersion: number;
    stepId: string;
    from: readonly StepStatus[];
    to: StepStatus;
    output?: Record<string, unknown> | null;
    error?: StepErrorRecord | null;
    /** Only while the run is in this status (checked in the same write, after any transition of the run on its way). */
    whileRunIs?: RunStatus;
  }): Promise<boolean>;
  listAttempts(runId: string): Promise<StepAttemptRecord[]>;
  /** The running steps of these runs, in one read (recovery after a restart, for many runs at once). */
  listRunningSteps(runIds: readonly string[]): Promise<StepRecord[]>;
  /**
   * Puts interrupted attempts back, in one write: each listed attempt still running ends `cancelled`
   * ("interrupted by a restart (why)"), its step goes back to pending and `step-requeued` is recorded.
   * An attempt that moved meanwhile is left alone; returns those requeued.
   */
  requeueInterrupted(attempts: readonly StepAttemptKey[], why: string): Promise<StepAttemptKey[]>;
}
