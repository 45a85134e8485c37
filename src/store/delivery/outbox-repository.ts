/**
 * The outbox: messages a run owes its thread, written with the change that owes them and marked
 * sent after delivery. A replica claims pending ones whose lease ran out (their writer died), with
 * SKIP LOCKED so two replicas never deliver the same one.
 */
import { and, asc, eq, inArray, lte, ne, or, sql } from 'drizzle-orm';
import type { NewOwedMessage, OweAlong, OwedMessage, RunRecord, RunStatus } from '../../agent/ports/run-store.ts';
import { builtOnce } from '../engine/built-once.ts';
import { preparedShapes } from '../engine/prepared-rows.ts';
import type { Db } from '../database.ts';
import { jsonParam } from '../engine/raw-rows.ts';
import { fromRawRun, type RawRunRow } from '../runs/run-rows.ts';
import { outbox } from '../schema.ts';

const leaseEnd = (ms: number) => sql`now() + ${Math.max(0, Math.round(ms))} * interval '1 millisecond'`;

function owedRows(runId: string, owed: readonly NewOwedMessage[], holder: { owner: string; leaseMs: number }) {
  return owed.map((message) => ({
    id: message.id,
    runId,
    kind: message.kind,
    payload: message.payload,
    leaseOwner: holder.owner,
    leaseUntil: leaseEnd(holder.leaseMs),
  }));
}

export interface FinishRunInput {
  runId: string;
  from: readonly RunStatus[];
  status: RunStatus;
  summary: Record<string, unknown>;
  finishedAt: Date;
  event: { type: string; data: Record<string, unknown> };
  owe: readonly NewOwedMessage[];
  owner: string;
  leaseMs: number;
}

/**
 * A run's end as one statement: status (only from `from`, and only once), summary, finish time, its
 * event (numbered on the same row update) and what it owes the thread. One round trip where a
 * transaction of three writes took five.
 */
export async function finishRunRecord(db: Db, input: FinishRunInput): Promise<RunRecord | undefined> {
  if (input.from.length === 0) return undefined;
  const owed = input.owe.map((message) => ({ id: message.id, kind: message.kind, payload: message.payload }));
  const values: Record<string, unknown> = {
    runId: input.runId,
    status: input.status,
    summary: jsonParam(input.summary),
    finishedAt: input.finishedAt.toISOString(),
    updatedAt: new Date().toISOString(),
    eventType: input.event.type,
    eventData: jsonParam(input.event.data),
    owner: input.owner,
    leaseMs: Math.max(0, Math.round(input.leaseMs)),
    owed: jsonParam(owed),
  };
  input.from.forEach((status, index) => (values[`from${index}`] = status));
  const [row] = await finishRunStatement(input.from.length)(db, values);
  return row ? fromRawRun(row) : undefined;
}

/** One statement for each number of statuses the run may end from (a handful). */
const finishRunStatement = preparedShapes<number, RawRunRow>((fromCount) => {
  const value = (name: string) => sql.placeholder(name);
  const from = Array.from({ length: fromCount }, (_, index) => value(`from${index}`));
  return sql`with moved as (
          update runs set status = ${value('status')}, summary = ${value('summary')}::jsonb,
            finished_at = ${value('finishedAt')}::timestamptz, updated_at = ${value('updatedAt')}::timestamptz,
            event_seq = event_seq + 1
          where id = ${value('runId')} and status in (${sql.join(from, sql`, `)}) and finished_at is null
          returning *
        ), logged as (
          insert into events (run_id, seq, type, data) select id, event_seq, ${value('eventType')}, ${value('eventData')}::jsonb from moved
        ), owed as (
          insert into outbox (id, run_id, kind, payload, lease_owner, lease_until)
          select o.id, moved.id, o.kind, o.payload, ${value('owner')}, now() + ${value('leaseMs')} * interval '1 millisecond'
          from moved, jsonb_to_recordset(${value('owed')}::jsonb) as o(id text, kind text, payload jsonb)
          on conflict do nothing
        )
        select * from moved`;
}, 'finish_run');

/** Records a message owed outside a run's end; the same id twice is one message. */
export async function insertOwed(db: Db, input: { runId: string; owe: readonly NewOwedMessage[]; owner: string; leaseMs: number }): Promise<void> {
  if (input.owe.length)
    await db
      .insert(outbox)
      .values(owedRows(input.runId, input.owe, input))
      .onConflictDoNothing();
}

/**
 * Takes pending messages for `owner`: of one run (those it holds already, or nobody does), or of any
 * run whose holder stopped renewing. `all`: one process on the store at start-up takes every one a
 * previous process held.
 */
/**
 * Inserts a row and, when a message is owed for it, that message in the same transaction. The row's id
 * names the message (`<runId>/<kind>/<id>`, found by its key after a crash) and goes in its payload as `<kind>Id`.
 */
export async function insertOwing<Row>(
  db: Db,
  input: { runId: string; id: string; kind: 'escalation' | 'question'; insert(tx: Db): Promise<Row[]> },
  owed: OweAlong | undefined,
): Promise<Row[]> {
  if (!owed) return input.insert(db);
  return db.transaction(async (tx) => {
    const rows = await input.insert(tx);
    const owe = [{ id: `${input.runId}/${input.kind}/${input.id}`, kind: input.kind, payload: { ...owed.payload, [`${input.kind}Id`]: input.id } }];
    await insertOwed(tx, { runId: input.runId, owe, owner: owed.owner, leaseMs: owed.leaseMs });
    return rows;
  });
}

export async function claimOwed(db: Db, input: { owner: string; leaseMs: number; all: boolean; runId?: string; limit: number }): Promise<OwedMessage[]> {
  const claim = claimStatements[`${input.all ? 'all' : 'own'}_${input.runId ? 'run' : 'any'}`](db);
  const rows = await claim.execute({ owner: input.owner, leaseMs: Math.max(1, Math.round(input.leaseMs)), runId: input.runId ?? null, limit: input.limit });
  return rows
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
    .map((row) => ({ id: row.id, runId: row.runId, kind: row.kind, payload: row.payload, attempts: row.attempts, createdAt: row.createdAt }));
}

/** The claim for one shape: whether it takes every other owner's messages (`all`), and whether of one run only. */
function claimStatement(all: boolean, ofRun: boolean) {
  return builtOnce((db) => {
    const owner = sql.placeholder('owner');
    const expired = lte(outbox.leaseUntil, sql`now()`);
    // `all`: whatever another owner id holds is a previous process's; this process's own stay with their deliverer.
    const free = all ? or(expired, ne(outbox.leaseOwner, owner)) : ofRun ? or(expired, eq(outbox.leaseOwner, owner)) : expired;
    const candidates = db
      .select({ id: outbox.id })
      .from(outbox)
      .where(and(eq(outbox.status, 'pending'), ofRun ? eq(outbox.runId, sql.placeholder('runId')) : undefined, free))
      .orderBy(asc(outbox.createdAt))
      .limit(sql.placeholder('limit'))
      // A run's own claim waits for a row another statement of this process is writing (a delivery putting the message
      // off behind an earlier one still being sent) instead of passing over it: that earlier delivery asks for the run's
      // messages again the moment it ends, and a skipped message would wait out its retry. Sweeps pass over busy rows.
      .for('update', ofRun && !all ? undefined : { skipLocked: true });
    return db
      .update(outbox)
      .set({
        leaseOwner: sql`${owner}`,
        leaseUntil: sql`now() + ${sql.placeholder('leaseMs')} * interval '1 millisecond'`,
        attempts: sql`${outbox.attempts} + 1`,
      })
      .where(and(inArray(outbox.id, candidates), eq(outbox.status, 'pending')))
      .returning()
      .prepare(`claim_owed_${all ? 'all' : 'own'}_${ofRun ? 'run' : 'any'}`);
  });
}

const claimStatements = {
  all_run: claimStatement(true, true),
  all_any: claimStatement(true, false),
  own_run: claimStatement(false, true),
  own_any: claimStatement(false, false),
};

const markSent = builtOnce((db) =>
  db
    .update(outbox)
    .set({ status: 'sent', sentAt: sql`now()`, leaseUntil: null })
    .where(eq(outbox.id, sql.placeholder('id')))
    .prepare('mark_owed_sent'),
);

export async function markOwedSent(db: Db, id: string): Promise<void> {
  await markSent(db).execute({ id });
}

/** Delivery failed: any replica may try again after `retryInMs`. */
export async function deferOwed(db: Db, input: { id: string; retryInMs: number }): Promise<void> {
  await db
    .update(outbox)
    .set({ leaseUntil: leaseEnd(input.retryInMs) })
    .where(and(eq(outbox.id, input.id), eq(outbox.status, 'pending')));
}
