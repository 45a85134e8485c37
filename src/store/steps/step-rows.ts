import type { StepErrorRecord, StepKind, StepRecord, StepStatus } from '../../agent/ports/run-store.ts';
import type { Risk } from '../../agent/ports/tool.ts';
import { asDate } from '../engine/raw-rows.ts';

/** A step row as a raw statement returns it (snake_case). */
export interface RawStepRow {
  run_id: string;
  plan_version: number;
  step_id: string;
  kind: StepKind;
  title: string;
  tool: string;
  risk: Risk;
  depends_on: string[];
  planned_args: Record<string, unknown>;
  status: StepStatus;
  attempt: number;
  output: Record<string, unknown> | null;
  error: StepErrorRecord | null;
  started_at: Date | string | null;
  finished_at: Date | string | null;
  lease_owner: string | null;
  lease_until: Date | string | null;
}

export function fromRawStep(row: RawStepRow): StepRecord {
  return {
    runId: row.run_id,
    planVersion: Number(row.plan_version),
    stepId: row.step_id,
    kind: row.kind,
    title: row.title,
    tool: row.tool,
    risk: row.risk,
    dependsOn: row.depends_on,
    plannedArgs: row.planned_args,
    status: row.status,
    attempt: Number(row.attempt),
    output: row.output,
    error: row.error,
    startedAt: asDate(row.started_at),
    finishedAt: asDate(row.finished_at),
    leaseOwner: row.lease_owner,
    leaseUntil: asDate(row.lease_until),
  };
}
