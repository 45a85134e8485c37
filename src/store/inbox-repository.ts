/**
 * The Slack inbox: a request is one INSERT before its ack (the Slack id as the key, so a redelivery
 * is recognised), leased to the replica that received it, and marked done once handled. Requests a
 * dead replica left pending are claimed like runs: when their lease ran out, with SKIP LOCKED.
 */
import { and, asc, eq, inArray, lt, lte, ne, or, sql } from 'drizzle-orm';
import type { Db } from './database.ts';
import { slackInbox } from './schema.ts';

export interface InboxEntry {
  key: string;
  body: Record<string, unknown>;
}

const leaseEnd = (leaseMs: number) => sql`now() + ${Math.max(1, Math.round(leaseMs))} * interval '1 millisecond'`;

/** True when the request is new; false for a redelivery of one stored before. */
export async function recordInboxEntry(db: Db, input: InboxEntry & { owner: string; leaseMs: number }): Promise<boolean> {
  const rows = await db
    .insert(slackInbox)
    .values({ id: input.key, body: input.body, leaseOwner: input.owner, leaseUntil: leaseEnd(input.leaseMs) })
    .onConflictDoNothing()
    .returning({ id: slackInbox.id });
  return rows.length === 1;
}

export async function finishInboxEntry(db: Db, key: string): Promise<void> {
  await db.update(slackInbox).set({ status: 'done', body: null, doneAt: sql`now()`, leaseUntil: null }).where(eq(slackInbox.id, key));
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
export async function claimPendingInbox(db: Db, input: { owner: string; leaseMs: number; all: boolean; limit: number; maxAttempts: number }): Promise<InboxEntry[]> {
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

/** Requests handled more than a day ago are forgotten: Slack stops redelivering within minutes. */
export async function forgetInboxBefore(db: Db, before: Date): Promise<void> {
  await db.delete(slackInbox).where(and(eq(slackInbox.status, 'done'), lt(slackInbox.receivedAt, before)));
}

/** The inbox as the Slack app uses it, for one replica. */
export function createSlackInbox(db: Db, options: { owner: string; soleOwner: boolean; leaseMs?: number }) {
  const leaseMs = options.leaseMs ?? 60_000;
  let startUp = true;
  return {
    leaseMs,
    record: (entry: InboxEntry) => recordInboxEntry(db, { ...entry, owner: options.owner, leaseMs }),
    done: (key: string) => finishInboxEntry(db, key),
    extend: (key: string) => extendInboxLease(db, { key, owner: options.owner, leaseMs }),
    async claimUnfinished(): Promise<InboxEntry[]> {
      const all = options.soleOwner && startUp;
      startUp = false;
      return claimPendingInbox(db, { owner: options.owner, leaseMs, all, limit: 50, maxAttempts: 3 });
    },
  };
}
