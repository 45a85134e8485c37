import type { Result } from '../agent/model/errors.ts';
import type { Plan } from '../agent/model/plan/plan.ts';
import type { RunStatus } from '../agent/ports/runs.ts';
import type { Runbook } from './runbook.ts';

export interface NewStoredRunbook {
  name: string;
  pattern: string;
  plan: Plan;
  params: string[];
  /** `run:<runId>` for a runbook saved from a run. */
  source: string;
  preApproved: boolean;
  createdBy: string | null;
}

/** What the catalog keeps in the database: runbooks saved from runs, and the past runs it learns from. Implemented in src/store. */
export interface RunbooksPort {
  /** Saved runbooks by name; a row whose plan no longer parses is left out rather than breaking every match. */
  listSaved(): Promise<Runbook[]>;
  /** Fails with a sentence when the name is taken. */
  save(input: NewStoredRunbook): Promise<Result<Runbook>>;
  /** False when no saved runbook has that name. */
  remove(name: string): Promise<boolean>;
  /** A run's task, status and last plan version: what "Save as runbook" starts from. */
  runWithLastPlan(runId: string): Promise<{ task: string; status: RunStatus; plan: Plan } | undefined>;
  /** Tasks and final plans of the latest `limit` runs that succeeded, newest first: the planner's examples. */
  succeededRunPlans(limit: number): Promise<{ task: string; plan: Plan }[]>;
}
