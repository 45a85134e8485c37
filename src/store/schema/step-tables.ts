/** A plan's steps: each step's state, every attempt at it, and the confirmations of targets filled in from words. */
import type { ConfirmationRecord, StepAttemptRecord, StepErrorRecord, StepKind, StepStatus } from '../../agent/ports/run-store.ts';
import type { Risk } from '../../agent/ports/tool.ts';
import { index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at, createdAt, jsonb } from './columns.ts';
import { runs } from './run-tables.ts';

export const steps = pgTable(
  'steps',
  {
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    planVersion: integer('plan_version').notNull(),
    stepId: text('step_id').notNull(),
    kind: text('kind').$type<StepKind>().notNull(),
    title: text('title').notNull(),
    tool: text('tool').notNull(),
    risk: text('risk').$type<Risk>().notNull(),
    dependsOn: jsonb('depends_on').$type<string[]>().notNull(),
    plannedArgs: jsonb('planned_args').$type<Record<string, unknown>>().notNull(),
    status: text('status').$type<StepStatus>().notNull(),
    attempt: integer('attempt').notNull().default(0),
    output: jsonb('output').$type<Record<string, unknown>>(),
    error: jsonb('error').$type<StepErrorRecord>(),
    startedAt: at('started_at'),
    finishedAt: at('finished_at'),
    leaseOwner: text('lease_owner'),
    leaseUntil: at('lease_until'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.planVersion, t.stepId] }), index('steps_status_idx').on(t.status)],
);

export const stepAttempts = pgTable(
  'step_attempts',
  {
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    planVersion: integer('plan_version').notNull(),
    stepId: text('step_id').notNull(),
    attempt: integer('attempt').notNull(),
    executedArgs: jsonb('executed_args').$type<Record<string, unknown>>().notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    owner: text('owner').notNull(),
    status: text('status').$type<StepAttemptRecord['status']>().notNull(),
    output: jsonb('output').$type<Record<string, unknown>>(),
    error: jsonb('error').$type<StepErrorRecord>(),
    startedAt: at('started_at').notNull().defaultNow(),
    finishedAt: at('finished_at'),
  },
  (t) => [primaryKey({ columns: [t.runId, t.planVersion, t.stepId, t.attempt] })],
);

/**
 * A write whose target was filled at run time from a person's answer or a model's text waits for an
 * approver's Confirm of exactly these values; the decided row is the audit's proof that it was given.
 */
export const targetConfirmations = pgTable(
  'target_confirmations',
  {
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    planVersion: integer('plan_version').notNull(),
    stepId: text('step_id').notNull(),
    tool: text('tool').notNull(),
    risk: text('risk').$type<Risk>().notNull(),
    /** The step's target args as they will be executed, references filled. */
    targets: jsonb('targets').$type<Record<string, unknown>>().notNull(),
    /** Which of them came from a person's or a model's words. */
    lateBound: jsonb('late_bound').$type<string[]>().notNull(),
    status: text('status').$type<ConfirmationRecord['status']>().notNull().default('pending'),
    decidedBy: text('decided_by'),
    createdAt: createdAt(),
    decidedAt: at('decided_at'),
  },
  (t) => [primaryKey({ columns: [t.runId, t.planVersion, t.stepId] })],
);
