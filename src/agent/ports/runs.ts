import type { RunEventData, RunEventInput } from '../model/run-events.ts';
import type { NewOwedMessage } from './outbox.ts';
import type { RunTrace } from './tracer.ts';
import type { RunStatus } from '../model/statuses.ts';

export type { RunStatus } from '../model/statuses.ts';
export { FINAL_RUN_STATUSES } from '../model/statuses.ts';

/** Where a run talks to people: a Slack channel and thread, or a test surface's equivalent. */
export interface Conversation {
  channel: string;
  threadTs: string;
}

export interface RunRecord {
  id: string;
  task: string;
  requester: string;
  conversation: Conversation;
  origin: 'mention' | 'command' | 'schedule' | 'cli';
  status: RunStatus;
  currentPlanVersion: number | null;
  replans: number;
  /** The surface's handle of the status board message (Slack `ts`). */
  boardRef: string | null;
  summary: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
  /** The run's trace ids, given when it is created; absent from runs stored before they were (and from test doubles). */
  trace?: RunTrace;
}

/** Runs: created, read, moved between statuses, and ended with what they owe their thread. */
export interface RunsPort {
  /** `requestId` names the request that started the run (at most one run per request). */
  createRun(input: {
    task: string;
    requester: string;
    conversation: Conversation;
    origin: RunRecord['origin'];
    requestId?: string;
    /** Recorded as the run's first event in the same write. */
    created?: RunEventData<'run-created'>;
    /** The run's lease, taken by its creator in the same write: no peer can adopt the run before its creator holds it. */
    lease?: { owner: string; leaseMs: number };
  }): Promise<RunRecord>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  /** The run a request started, when it started one (a request handled again after a crash finds it). */
  findRunByRequest(requestId: string): Promise<RunRecord | undefined>;
  findRunByConversation(conversation: Conversation): Promise<RunRecord | undefined>;
  updateRun(
    runId: string,
    patch: Partial<Pick<RunRecord, 'status' | 'currentPlanVersion' | 'replans' | 'boardRef' | 'summary' | 'finishedAt'>>,
  ): Promise<RunRecord>;
  /** Moves a run from one status to another only if it is still in `from`; false if someone else moved it. */
  transitionRun(runId: string, from: readonly RunStatus[], to: RunStatus): Promise<boolean>;
  listRuns(filter: { limit: number; requester?: string; channel?: string; statuses?: readonly RunStatus[] }): Promise<RunRecord[]>;
  /**
   * Ends a run in one transaction: moves it from `from` to its final status with its summary and
   * finish time, appends `event`, and records what it owes its thread (held by `owner` for `leaseMs`).
   * Undefined when the run had already left `from`.
   */
  finishRun(input: {
    runId: string;
    from: readonly RunStatus[];
    status: RunStatus;
    summary: Record<string, unknown>;
    finishedAt: Date;
    event: RunEventInput;
    owe: readonly NewOwedMessage[];
    owner: string;
    leaseMs: number;
  }): Promise<RunRecord | undefined>;
}
