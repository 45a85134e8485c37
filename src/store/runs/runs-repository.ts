import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Conversation, RunRecord, RunsPort, RunStatus } from '../../agent/ports/run-store.ts';
import { builtOnce } from '../engine/built-once.ts';
import type { Db } from '../database.ts';
import { newId, newSpanId, newTraceId } from '../ids.ts';
import { preparedShapes } from '../engine/prepared-rows.ts';
import { jsonParam } from '../engine/raw-rows.ts';
import { fromRawRun, runTrace, type RawRunRow } from './run-rows.ts';
import { runs } from '../schema.ts';

type RunRow = typeof runs.$inferSelect;

export function toRunRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    task: row.task,
    requester: row.requester,
    conversation: { channel: row.channel, threadTs: row.threadTs },
    origin: row.origin,
    status: row.status,
    currentPlanVersion: row.currentPlanVersion,
    replans: row.replans,
    boardRef: row.boardRef,
    summary: row.summary,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    finishedAt: row.finishedAt,
    ...runTrace(row.traceId, row.traceSpanId),
  };
}

/** A new run in `planning`, with its `run-created` event (numbered 1) and its creator's lease in the same statement when given. */
export async function insertRun(db: Db, input: Parameters<RunsPort['createRun']>[0]): Promise<RunRecord> {
  const { created, lease } = input;
  const [row] = await newRunStatement(`${created ? 'logged' : 'silent'}_${lease ? 'leased' : 'free'}`)(db, {
    id: newId('run'),
    task: input.task,
    requester: input.requester,
    channel: input.conversation.channel,
    threadTs: input.conversation.threadTs,
    origin: input.origin,
    requestId: input.requestId ?? null,
    eventSeq: created ? 1 : 0,
    leaseOwner: lease?.owner ?? null,
    leaseMs: lease ? Math.max(1, Math.round(lease.leaseMs)) : null,
    traceId: newTraceId(),
    traceSpanId: newSpanId(),
    created: created ? jsonParam(created) : null,
  });
  return fromRawRun(row!);
}

/** Whether the run logs `run-created`, and whether its creator leases it (`leaseEnd`'s expression, or null). */
type NewRunShape = `${'logged' | 'silent'}_${'leased' | 'free'}`;

const newRunStatement = preparedShapes<NewRunShape, RawRunRow>((shape) => {
  const value = (name: string) => sql.placeholder(name);
  const leaseUntil = shape.endsWith('_leased') ? sql`now() + ${value('leaseMs')} * interval '1 millisecond'` : sql`null`;
  return sql`with created as (
          insert into runs (id, task, requester, channel, thread_ts, origin, status, request_id, event_seq, lease_owner, lease_until, trace_id, trace_span_id)
          values (${value('id')}, ${value('task')}, ${value('requester')}, ${value('channel')}, ${value('threadTs')},
            ${value('origin')}, 'planning', ${value('requestId')}, ${value('eventSeq')}, ${value('leaseOwner')},
            ${leaseUntil}, ${value('traceId')}, ${value('traceSpanId')})
          returning *
        )${
          shape.startsWith('logged_')
            ? sql`, logged as (insert into events (run_id, seq, type, data) select id, 1, 'run-created', ${value('created')}::jsonb from created)`
            : sql``
        }
        select * from created`;
}, 'new_run');

const runById = builtOnce((db) =>
  db
    .select()
    .from(runs)
    .where(eq(runs.id, sql.placeholder('runId')))
    .prepare('run_by_id'),
);

export async function selectRun(db: Db, runId: string): Promise<RunRecord | undefined> {
  const [row] = await runById(db).execute({ runId });
  return row ? toRunRecord(row) : undefined;
}

export async function selectRunByRequest(db: Db, requestId: string): Promise<RunRecord | undefined> {
  const [row] = await db.select().from(runs).where(eq(runs.requestId, requestId));
  return row ? toRunRecord(row) : undefined;
}

export async function selectRunByConversation(db: Db, conversation: Conversation): Promise<RunRecord | undefined> {
  const [row] = await db
    .select()
    .from(runs)
    .where(and(eq(runs.channel, conversation.channel), eq(runs.threadTs, conversation.threadTs)))
    .orderBy(desc(runs.createdAt))
    .limit(1);
  return row ? toRunRecord(row) : undefined;
}

export type RunPatch = Partial<Pick<RunRecord, 'status' | 'currentPlanVersion' | 'replans' | 'boardRef' | 'summary' | 'finishedAt'>>;

export async function patchRun(db: Db, runId: string, patch: RunPatch): Promise<RunRecord> {
  const [row] = await db
    .update(runs)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(runs.id, runId))
    .returning();
  if (!row) throw new Error(`run ${runId} not found`);
  return toRunRecord(row);
}

export async function transitionRunStatus(db: Db, runId: string, from: readonly RunStatus[], to: RunStatus): Promise<boolean> {
  if (from.length === 0) return false;
  const rows = await db
    .update(runs)
    .set({ status: to, updatedAt: new Date() })
    .where(and(eq(runs.id, runId), inArray(runs.status, [...from])))
    .returning({ id: runs.id });
  return rows.length === 1;
}

export async function selectRuns(
  db: Db,
  filter: { limit: number; requester?: string; channel?: string; statuses?: readonly RunStatus[] },
): Promise<RunRecord[]> {
  const conditions: SQL[] = [];
  if (filter.requester) conditions.push(eq(runs.requester, filter.requester));
  if (filter.channel) conditions.push(eq(runs.channel, filter.channel));
  if (filter.statuses) conditions.push(inArray(runs.status, [...filter.statuses]));
  const rows = await db
    .select()
    .from(runs)
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(filter.limit);
  return rows.map(toRunRecord);
}
