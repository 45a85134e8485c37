/**
 * The Slack inbox: a request is one INSERT before its ack (the Slack id as the key, so a redelivery
 * is recognised), leased to the replica that received it, and marked done once handled. Requests a
 * dead replica left pending are claimed like runs: when their lease ran out, with SKIP LOCKED.
 */
import { and, asc, eq, inArray, lt, lte, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { leaseEnd } from '../leases/lease-end.ts';
import { jsonParam, rawRows } from '../engine/raw-rows.ts';
import { slackInbox } from '../schema.ts';
import type { StoreHealth } from '../engine/store-health.ts';

export interface InboxEntry {
  key: string;
  body: Record<string, unknown>;
}

/**
 * The keys that were new, of requests stored in one INSERT; a key stored before (a redelivery) is missing.
 * The rows travel as one JSON row set: one statement text for any burst, prepared once, and one parameter
 * where a row per value cost the store a fresh plan and the process a parameter per field.
 */
export async function recordInboxEntries(db: Db, entries: readonly InboxEntry[], holder: { owner: string; leaseMs: number }): Promise<Set<string>> {
  const rows = await rawRows<{ id: string }>(
    db,
    sql`insert into slack_inbox (id, body, lease_owner, lease_until)
        select e.key, e.body, ${holder.owner}, ${leaseEnd(holder.leaseMs)}
        from jsonb_to_recordset(${jsonParam(entries)}::jsonb) as e(key text, body jsonb)
        on conflict do nothing
        returning id`,
  );
  return new Set(rows.map((row) => row.id));
}

/**
 * Calls share statements, one statement in flight at a time: the calls of one turn of the event loop
 * start the first, and every call made while a statement runs goes into the next, sent when it ends
 * (group commit). A burst of clicks then costs two or three commits instead of one per turn, so no ack
 * waits behind a queue of small statements, on PostgreSQL's disk or on PGlite's single thread. A
 * caller's promise settles only after the statement holding its item did.
 */
function batchedPerTurn<Item, Answer>(write: (items: Item[]) => Promise<Answer[]>): (item: Item) => Promise<Answer> {
  let batch: { item: Item; resolve(answer: Answer): void; reject(error: unknown): void }[] = [];
  let writing = false;
  const flush = () => {
    if (writing || batch.length === 0) return;
    const taken = batch;
    batch = [];
    writing = true;
    write(taken.map((entry) => entry.item))
      .then(
        (answers) => taken.forEach((entry, i) => entry.resolve(answers[i]!)),
        (error: unknown) => taken.forEach((entry) => entry.reject(error)),
      )
      .finally(() => {
        writing = false;
        flush();
      });
  };
  return (item) =>
    new Promise((resolve, reject) => {
      if (batch.length === 0 && !writing) setImmediate(flush);
      batch.push({ item, resolve, reject });
    });
}

/** Each caller learns whether its own request was new; the second of two with one key in a batch is a redelivery. */
function batchedRecorder(db: Db, holder: { owner: string; leaseMs: number }): (entry: InboxEntry) => Promise<boolean> {
  return batchedPerTurn(async (entries: InboxEntry[]) => {
    const first = new Map<string, InboxEntry>();
    for (const entry of entries) if (!first.has(entry.key)) first.set(entry.key, entry);
    const fresh = await recordInboxEntries(db, [...first.values()], holder);
    return entries.map((entry) => first.get(entry.key) === entry && fresh.has(entry.key));
  });
}

export async function finishInboxEntry(db: Db, key: string): Promise<void> {
  await finishInboxEntries(db, [key]);
}

/** Marks requests handled, in one UPDATE: after a burst, a hundred handlers finishing at once cost one statement. */
async function finishInboxEntries(db: Db, keys: readonly string[]): Promise<void> {
  await db
    .update(slackInbox)
    .set({ status: 'done', body: null, doneAt: sql`now()`, leaseUntil: null })
    .where(inArray(slackInbox.id, [...new Set(keys)]));
}

/** A handler still at work keeps its request from being taken over. */
export async function extendInboxLease(db: Db, input: { key: string; owner: string; leaseMs: number }): Promise<void> {
  await db
    .update(slackInbox)
    .set({ leaseUntil: leaseEnd(input.leaseMs) })
    .where(and(eq(slackInbox.id, input.key), eq(slackInbox.leaseOwner, input.owner), eq(slackInbox.status, 'pending')));
}

/**
 * Pending requests nobody is handling, taken for `owner` oldest first. `all` (one process on the
 * store, at start-up) takes every pending one a previous process held: it is gone. A request tried
 * `maxAttempts` times is given up (marked done) so a request that crashes its handler cannot loop.
 */
export async function claimPendingInbox(
  db: Db,
  input: { owner: string; leaseMs: number; all: boolean; limit: number; maxAttempts: number },
): Promise<InboxEntry[]> {
  // `all`: what another owner id holds is a previous process's; requests this process is handling now stay with it.
  const expired = lte(slackInbox.leaseUntil, sql`now()`);
  const free = input.all ? or(expired, ne(slackInbox.leaseOwner, input.owner)) : expired;
  const candidates = db
    .select({ id: slackInbox.id })
    .from(slackInbox)
    .where(and(eq(slackInbox.status, 'pending'), free))
    .orderBy(asc(slackInbox.receivedAt))
    .limit(input.limit)
    .for('update', { skipLocked: true });
  const rows = await db
    .update(slackInbox)
    .set({ leaseOwner: input.owner, leaseUntil: leaseEnd(input.leaseMs), attempts: sql`${slackInbox.attempts} + 1` })
    .where(and(inArray(slackInbox.id, candidates), eq(slackInbox.status, 'pending')))
    .returning();
  const entries: InboxEntry[] = [];
  for (const row of rows.sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime())) {
    if (row.attempts > input.maxAttempts || !row.body) await finishInboxEntry(db, row.id);
    else entries.push({ key: row.id, body: row.body });
  }
  return entries;
}

/**
 * Requests this owner kept pending because the store failed while they were handled, leased again without
 * counting an attempt (the store's failure is not the request's); the keys still pending and now held here.
 * One a peer took over once its lease ran out stays the peer's.
 */
async function reclaimInboxEntries(db: Db, keys: readonly string[], holder: { owner: string; leaseMs: number }): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .update(slackInbox)
    .set({ leaseOwner: holder.owner, leaseUntil: leaseEnd(holder.leaseMs) })
    .where(
      and(
        inArray(slackInbox.id, [...keys]),
        eq(slackInbox.status, 'pending'),
        or(eq(slackInbox.leaseOwner, holder.owner), lte(slackInbox.leaseUntil, sql`now()`)),
      ),
    )
    .returning({ id: slackInbox.id });
  return rows.map((row) => row.id);
}

/** Requests handled more than a day ago are forgotten: Slack stops redelivering within minutes. */
export async function forgetInboxBefore(db: Db, before: Date): Promise<void> {
  await db.delete(slackInbox).where(and(eq(slackInbox.status, 'done'), lt(slackInbox.receivedAt, before)));
}

/** The inbox as the Slack app uses it, for one replica. */
export function createSlackInbox(db: Db, options: { owner: string; soleOwner: boolean; leaseMs?: number; health?: StoreHealth }) {
  const leaseMs = options.leaseMs ?? 60_000;
  let failuresSeen = 0;
  options.health?.onFailure(() => (failuresSeen += 1));
  let startUp = true;
  const record = batchedRecorder(db, { owner: options.owner, leaseMs });
  const done = batchedPerTurn(async (keys: string[]) => (await finishInboxEntries(db, keys), keys.map(() => undefined)));
  return {
    leaseMs,
    record,
    done,
    extend: (key: string) => extendInboxLease(db, { key, owner: options.owner, leaseMs }),
    async claimUnfinished(): Promise<InboxEntry[]> {
      const all = options.soleOwner && startUp;
      startUp = false;
      return claimPendingInbox(db, { owner: options.owner, leaseMs, all, limit: 50, maxAttempts: 3 });
    },
    storeFailures: () => ({ seen: failuresSeen, writable: options.health?.snapshot().ok ?? true }),
    reclaim: (keys: readonly string[]) => reclaimInboxEntries(db, keys, { owner: options.owner, leaseMs }),
  };
}
