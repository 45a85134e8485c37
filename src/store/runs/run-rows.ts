import type { RunRecord, RunStatus } from '../../agent/ports/run-store.ts';
import { asDate } from '../engine/raw-rows.ts';

/** A run row as a raw statement returns it (snake_case). */
export interface RawRunRow {
  id: string;
  task: string;
  requester: string;
  channel: string;
  thread_ts: string;
  origin: RunRecord['origin'];
  status: RunStatus;
  current_plan_version: number | null;
  replans: number;
  board_ref: string | null;
  summary: Record<string, unknown> | null;
  created_at: Date | string;
  updated_at: Date | string;
  finished_at: Date | string | null;
  trace_id: string | null;
  trace_span_id: string | null;
}

export function fromRawRun(row: RawRunRow): RunRecord {
  return {
    id: row.id,
    task: row.task,
    requester: row.requester,
    conversation: { channel: row.channel, threadTs: row.thread_ts },
    origin: row.origin,
    status: row.status,
    currentPlanVersion: row.current_plan_version === null ? null : Number(row.current_plan_version),
    replans: Number(row.replans),
    boardRef: row.board_ref,
    summary: row.summary,
    createdAt: asDate(row.created_at),
    updatedAt: asDate(row.updated_at),
    finishedAt: asDate(row.finished_at),
    ...runTrace(row.trace_id, row.trace_span_id),
  };
}

/** The run's trace ids when both are stored (runs from before they were have none). */
export function runTrace(traceId: string | null, rootSpanId: string | null): Pick<RunRecord, 'trace'> {
  return traceId && rootSpanId ? { trace: { traceId, rootSpanId } } : {};
}
