import type { RunEvent } from '../model/run-events.ts';
import type { PlanVersionRecord } from './plans.ts';
import type { RunRecord } from './runs.ts';
import type { StepRecord } from './steps.ts';
import type { ModelUsage } from './usage.ts';

/** Everything a run's summary is made of, as the store holds it at one moment. */
export interface RunSummarySource {
  run: RunRecord;
  /** Every step of every version, undo steps too, in the order `listSteps` gives. */
  steps: StepRecord[];
  versions: PlanVersionRecord[];
  usage: { inputTokens: number; outputTokens: number; costUsd: number };
  /** As `usageByModel` gives it: per role and `provider:model`, largest cost first. */
  usageByModel: ModelUsage[];
  /** The run's last `planner-fallback` event, when its planner fell back to another model. */
  lastFallback: RunEvent | null;
  /** The run's `step-evaluated` events in order: the checks of results that could not be made. */
  evaluations: RunEvent[];
  /** Some step of the run asked for a Confirm of its targets (a confirmation row, whatever became of it). */
  confirmsAsked: boolean;
}

/** Everything a run's board is drawn from, as the store holds it at one moment. */
export interface RunBoardSource {
  run: RunRecord;
  /** Every step of every version, as `listSteps` gives them. */
  steps: StepRecord[];
  /** The newest version a forward step belongs to (the one the board draws); undefined when no version has steps. */
  ran: PlanVersionRecord | undefined;
  /** The run's `step-evaluated` events in order, and no other event: a board does not read the whole log. */
  evaluations: RunEvent[];
}

/** A run's end reads all of it once: one statement, where six reads cost six round trips. */
export interface SummaryPort {
  summarySource(runId: string): Promise<RunSummarySource | undefined>;
  /** A board drawn from the store reads its run in one statement too (undefined for a run that does not exist). */
  boardSource(runId: string): Promise<RunBoardSource | undefined>;
}
