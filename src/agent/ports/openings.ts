import type { RunClockFacts } from '../model/budgets.ts';
import type { EscalationRecord } from './human-input.ts';
import type { ApprovalRecord, PlanVersionRecord } from './plans.ts';
import type { RunRecord } from './runs.ts';
import type { StepRecord } from './steps.ts';

/**
 * What a driver reads of a run before its pass starts anything. For a run that is not executing, or has
 * no plan version, only `run` is read (the rest is empty): nothing of it will run.
 */
export interface PassOpening {
  run: RunRecord;
  /** The plan version the run row names as current, when it read. */
  version: PlanVersionRecord | undefined;
  approvals: ApprovalRecord[];
  /** Every step row of the run: every version, undo steps too. */
  steps: StepRecord[];
  /** The run's open escalations, enough of each to tell which steps wait for a person. */
  escalations: Pick<EscalationRecord, 'planVersion' | 'stepId' | 'status'>[];
  /** The run's model tokens so far. */
  tokens: number;
}

/** The first reads of many drivers at once (after a restart, a thousand runs start together). */
export interface OpeningsPort {
  /**
   * One opening for each of these runs that exists, in a few statements whatever their number (the run
   * rows first; the rest for the executing ones, by the version each run row named).
   */
  passOpenings(runIds: readonly string[]): Promise<PassOpening[]>;
  /** The model tokens each of these runs used so far (a run without usage: 0), in one read. */
  tokensOf(runIds: readonly string[]): Promise<Map<string, number>>;
  /**
   * When each of these runs waited for a person and, for a run that did, when its steps ran (budgets.ts
   * `runTimeSpentMs`), in one read; a run without waits is absent.
   */
  clockFactsOf(runIds: readonly string[]): Promise<Map<string, RunClockFacts>>;
}
