/**
 * The in-memory store's rows, one map per table of the real store (src/store/schema). Every port method
 * reads and writes them synchronously between two awaits, so each call is one atomic "transaction": a
 * compare-and-set cannot interleave with another call, as a row lock makes it on PostgreSQL.
 */
import type { RunEventInput } from '../../model/run-events.ts';
import { storableJson, storableText } from '../../text/storable-text.ts';
import type { EscalationRecord, QuestionRecord, ConfirmationRecord, WaitMessageRecord } from '../../ports/human-input.ts';
import type { ApprovalRecord, PlanVersionRecord } from '../../ports/plans.ts';
import type { RunRecord } from '../../ports/runs.ts';
import type { StepAttemptRecord, StepRecord } from '../../ports/steps.ts';
import type { UsageRecord } from '../../ports/usage.ts';

/** Rows carry `tick`: the place of the write that made them in commit order (PostgreSQL's `now()` is a transaction's time). */
export interface Ticked {
  tick: number;
}

export interface RunRow extends Ticked {
  run: RunRecord;
  requestId: string | null;
  /** The run's event counter, as `runs.event_seq`. */
  eventSeq: number;
  leaseOwner: string | null;
  leaseUntil: Date | null;
}

export interface StoredEvent {
  runId: string;
  seq: number;
  type: string;
  data: Record<string, unknown>;
  at: Date;
}

export interface OutboxRow extends Ticked {
  id: string;
  runId: string;
  kind: string;
  payload: Record<string, unknown>;
  status: 'pending' | 'sent';
  attempts: number;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  createdAt: Date;
}

/** What one call sees: its time and its place in commit order. */
export interface Write {
  now: Date;
  tick: number;
}

export class MemoryTables {
  readonly runs = new Map<string, RunRow>();
  /** Told of every change of a run's status, for tests that hold the store's moves to model/run-moves.ts. */
  onRunMove: ((runId: string, from: RunRecord['status'], to: RunRecord['status']) => void) | undefined;
  readonly planVersions: PlanVersionRecord[] = [];
  readonly approvals: ApprovalRecord[] = [];
  /** Keyed by `stepKey`. */
  readonly steps = new Map<string, StepRecord & Ticked>();
  readonly attempts: (StepAttemptRecord & Ticked & { owner: string })[] = [];
  readonly events = new Map<string, StoredEvent[]>();
  readonly escalations = new Map<string, EscalationRecord & Ticked>();
  readonly questions = new Map<string, QuestionRecord & Ticked>();
  /** Keyed by `stepKey`. */
  readonly confirmations = new Map<string, ConfirmationRecord & Ticked>();
  /** Keyed by `runId/wait/key`: the newest post of each wait's message. */
  readonly waitMessages = new Map<string, WaitMessageRecord & Ticked>();
  readonly outbox = new Map<string, OutboxRow>();
  /** `runId/kind/key` of every reminder sent. */
  readonly reminders = new Set<string>();
  readonly usage: UsageRecord[] = [];
  /** Heartbeats by replica id, as the `replicas` table. */
  readonly replicas = new Map<string, Date>();
  private ticks = 0;

  begin(): Write {
    return { now: new Date(), tick: ++this.ticks };
  }

  /** The run row, or the error a foreign key to it raises. */
  runRow(runId: string): RunRow {
    const row = this.runs.get(runId);
    if (!row) throw new Error(`run ${runId} not found`);
    return row;
  }

  /** Numbers the events on from the run's counter, in the order given (as appendEvents does on the run row). */
  appendEvents(row: RunRow, batch: readonly { type: string; data?: Record<string, unknown> }[], write: Write): StoredEvent[] {
    const log = this.events.get(row.run.id) ?? [];
    this.events.set(row.run.id, log);
    const stored = batch.map((event) => ({ runId: row.run.id, seq: ++row.eventSeq, type: event.type, data: json(event.data ?? {}), at: write.now }));
    log.push(...stored);
    return stored;
  }

  appendEvent(row: RunRow, event: RunEventInput, write: Write): void {
    this.appendEvents(row, [event], write);
  }
}

export const stepKey = (key: { runId: string; planVersion: number; stepId: string }): string => `${key.runId}\u0000${key.planVersion}\u0000${key.stepId}`;

/** A value as a `jsonb` column gives it back: a copy, its strings storable, `undefined` members gone. */
export function json<T>(value: T): T {
  return value === undefined || value === null ? (null as T) : (JSON.parse(storableJson(value)) as T);
}

/** Text as a `text` column keeps it. */
export const text = (value: string): string => storableText(value);
export const maybeText = (value: string | null): string | null => (value === null ? null : storableText(value));

/** A record handed out: the caller's copy, never the stored row. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/** Drops the bookkeeping a row carries beside its record. */
export function untick<T extends Ticked>(row: T): Omit<T, 'tick'> {
  const { tick: _tick, ...record } = row;
  return copy(record);
}

/** Rows in commit order, then by the keys the real store orders by. */
export const byTick = <T extends Ticked>(a: T, b: T): number => a.tick - b.tick;

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
let idCounter = 0;

/** `run_k3x9…` as the real store names rows: a prefix, a time-ordered head, and a counter unique in this process. */
export function newId(prefix: string): string {
  const digits = (value: number, width: number) => {
    let out = '';
    for (let i = 0; i < width; i++) {
      out = ALPHABET[value % 32] + out;
      value = Math.floor(value / 32);
    }
    return out;
  };
  return `${prefix}_${digits(Date.now(), 7)}${digits(++idCounter, 5)}`;
}

/** A W3C trace or span id of `bytes` bytes, never all zeros. */
export function newHexId(bytes: number): string {
  let hex = '';
  for (let i = 0; i < bytes * 2; i++) hex += Math.floor(Math.random() * 16).toString(16);
  return /[^0]/.test(hex) ? hex : newHexId(bytes);
}

export const leaseEnd = (write: Write, ms: number): Date => new Date(write.now.getTime() + Math.max(0, Math.round(ms)));
export const expired = (until: Date | null, write: Write): boolean => until !== null && until.getTime() <= write.now.getTime();
