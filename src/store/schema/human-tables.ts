/** What waits on a person: escalations, the questions a tool asked, and where each wait's message was posted. */
import type { EscalationAction, EscalationRecord, WaitKind } from '../../agent/ports/run-store.ts';
import type { Text } from '../../agent/text/text.ts';
import { index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at, createdAt, jsonb } from './columns.ts';
import { runs } from './run-tables.ts';

export const escalations = pgTable(
  'escalations',
  {
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    planVersion: integer('plan_version'),
    stepId: text('step_id'),
    kind: text('kind').$type<EscalationRecord['kind']>().notNull(),
    /** Words with people and settings as data (a JSON string in rows written before they were). */
    message: jsonb('message').$type<Text>().notNull(),
    status: text('status').$type<EscalationRecord['status']>().notNull().default('open'),
    resolution: text('resolution').$type<EscalationAction>(),
    resolvedBy: text('resolved_by'),
    createdAt: createdAt(),
    resolvedAt: at('resolved_at'),
  },
  (t) => [index('escalations_run_idx').on(t.runId), index('escalations_open_idx').on(t.status)],
);

export const questions = pgTable(
  'questions',
  {
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    stepId: text('step_id'),
    planVersion: integer('plan_version'),
    question: text('question').notNull(),
    answer: text('answer'),
    answeredBy: text('answered_by'),
    createdAt: createdAt(),
    answeredAt: at('answered_at'),
  },
  (t) => [index('questions_run_idx').on(t.runId)],
);

/** One row per wait whose message is in a thread: the newest post of it, so any replica can link it (decision 037). */
export const waitMessages = pgTable(
  'wait_messages',
  {
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    wait: text('wait').$type<WaitKind>().notNull(),
    key: text('key').notNull(),
    channel: text('channel').notNull(),
    ts: text('ts').notNull(),
    permalink: text('permalink'),
    postedAt: at('posted_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.wait, t.key] })],
);
