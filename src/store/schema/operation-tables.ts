/** What the process runs by: saved runbooks, schedules and each slot fired, and the replicas sharing the store. */
import { sql } from 'drizzle-orm';
import { boolean, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at, createdAt, jsonb } from './columns.ts';

export const runbooks = pgTable('runbooks', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  /** "deploy {ref} of {repo} to {env}": placeholders become plan parameters. */
  pattern: text('pattern').notNull(),
  /** Parsed with RunbookPlanSchema on every read. */
  plan: jsonb('plan').$type<unknown>().notNull(),
  params: jsonb('params')
    .$type<string[]>()
    .notNull()
    .default(sql`'[]'::jsonb`),
  source: text('source').notNull(),
  /** Read-only runbooks may be pre-approved for scheduled runs. */
  preApproved: boolean('pre_approved').notNull().default(false),
  createdBy: text('created_by'),
  createdAt: createdAt(),
});

export const schedules = pgTable('schedules', {
  id: text('id').primaryKey(),
  cron: text('cron').notNull(),
  timeZone: text('time_zone').notNull(),
  task: text('task').notNull(),
  channel: text('channel').notNull(),
  createdBy: text('created_by').notNull(),
  runbookId: text('runbook_id').references(() => runbooks.id, { onDelete: 'set null' }),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: createdAt(),
});

/** One row per fired slot: the unique key makes each slot fire once across replicas. */
export const cronFires = pgTable(
  'cron_fires',
  {
    scheduleId: text('schedule_id')
      .notNull()
      .references(() => schedules.id, { onDelete: 'cascade' }),
    slot: at('slot').notNull(),
    firedBy: text('fired_by').notNull(),
    runId: text('run_id'),
    at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.scheduleId, t.slot] })],
);

export const replicas = pgTable('replicas', {
  id: text('id').primaryKey(),
  startedAt: createdAt(),
  heartbeatAt: at('heartbeat_at').notNull().defaultNow(),
});
