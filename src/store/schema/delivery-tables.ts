/** Requests in and messages out: Slack events seen, the inbox of acknowledged requests, owed messages, and reminders sent once. */
import { index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at, createdAt, jsonb } from './columns.ts';
import { runs } from './run-tables.ts';

export const slackEventsSeen = pgTable('slack_events_seen', {
  eventId: text('event_id').primaryKey(),
  seenAt: createdAt(),
});

/**
 * Every Slack request (event, click, view submission, command), stored before it is acknowledged and
 * handled from here: a process that dies after the ack leaves it pending for the next start or a peer.
 * The id is the request's own Slack id, so a redelivery is recognised. The body is dropped once handled.
 */
export const slackInbox = pgTable(
  'slack_inbox',
  {
    id: text('id').primaryKey(),
    body: jsonb('body').$type<Record<string, unknown>>(),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(1),
    leaseOwner: text('lease_owner'),
    leaseUntil: at('lease_until'),
    receivedAt: createdAt(),
    doneAt: at('done_at'),
  },
  (t) => [index('slack_inbox_pending_idx').on(t.status, t.leaseUntil)],
);

/**
 * What a run owes its thread (its summary, an escalation, a question, a notice), written in the same
 * transaction as the change that owes it and marked sent once Slack has it. Leased like runs: the
 * replica that wrote it delivers it; if that replica dies, another delivers what is still pending.
 */
export const outbox = pgTable(
  'outbox',
  {
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status').notNull().default('pending'),
    /** Deliveries begun; above 1 a message may already be in Slack, so the surface looks for it before posting. */
    attempts: integer('attempts').notNull().default(0),
    leaseOwner: text('lease_owner'),
    leaseUntil: at('lease_until'),
    createdAt: createdAt(),
    sentAt: at('sent_at'),
  },
  (t) => [index('outbox_pending_idx').on(t.status, t.leaseUntil), index('outbox_run_idx').on(t.runId)],
);

/** One row per reminder or re-ping sent: the primary key makes each one go out once across replicas. */
export const reminders = pgTable(
  'reminders',
  {
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    key: text('key').notNull(),
    sentAt: at('sent_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.kind, t.key] })],
);
