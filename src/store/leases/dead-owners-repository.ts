/**
 * Leases held by a process known to be dead are let go at once, so the next start (or a peer on the
 * same host) takes over its runs, steps, Slack requests and owed messages in seconds instead of
 * waiting for each lease to run out.
 */
import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { outbox, runs, slackInbox, steps } from '../schema.ts';

/** Every owner id holding a live lease on something; returns the ones `isDead` named, after expiring their leases. */
export async function expireLeasesOfDeadOwners(db: Db, isDead: (owner: string) => boolean): Promise<string[]> {
  const live = gt(runs.leaseUntil, sql`now()`);
  const [runOwners, stepOwners, inboxOwners, outboxOwners] = await Promise.all([
    db.selectDistinct({ owner: runs.leaseOwner }).from(runs).where(live),
    db
      .selectDistinct({ owner: steps.leaseOwner })
      .from(steps)
      .where(and(eq(steps.status, 'running'), gt(steps.leaseUntil, sql`now()`))),
    db
      .selectDistinct({ owner: slackInbox.leaseOwner })
      .from(slackInbox)
      .where(and(eq(slackInbox.status, 'pending'), gt(slackInbox.leaseUntil, sql`now()`))),
    db
      .selectDistinct({ owner: outbox.leaseOwner })
      .from(outbox)
      .where(and(eq(outbox.status, 'pending'), gt(outbox.leaseUntil, sql`now()`))),
  ]);
  const owners = new Set(
    [...runOwners, ...stepOwners, ...inboxOwners, ...outboxOwners].map((row) => row.owner).filter((owner): owner is string => Boolean(owner)),
  );
  const dead = [...owners].filter(isDead);
  if (dead.length === 0) return [];
  await db
    .update(runs)
    .set({ leaseUntil: sql`now()` })
    .where(inArray(runs.leaseOwner, dead));
  await db
    .update(steps)
    .set({ leaseUntil: sql`now()` })
    .where(and(inArray(steps.leaseOwner, dead), eq(steps.status, 'running')));
  await db
    .update(slackInbox)
    .set({ leaseUntil: sql`now()` })
    .where(and(inArray(slackInbox.leaseOwner, dead), eq(slackInbox.status, 'pending')));
  await db
    .update(outbox)
    .set({ leaseUntil: sql`now()` })
    .where(and(inArray(outbox.leaseOwner, dead), eq(outbox.status, 'pending')));
  return dead;
}
