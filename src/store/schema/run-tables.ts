/** A run and its record: the request, each plan version, the decisions on it, the event log, model usage and feedback. */
import type { PlanAuthorKind } from '../../agent/model/plan/plan.ts';
import type { ApprovalRecord, RunRecord, RunStatus } from '../../agent/ports/run-store.ts';
import type { Text } from '../../agent/text/text.ts';
import { sql } from 'drizzle-orm';
import { bigint, doublePrecision, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at, createdAt, jsonb } from './columns.ts';

export const runs = pgTable(
  'runs',
  {
    id: text('id').primaryKey(),
    task: text('task').notNull(),
    requester: text('requester').notNull(),
    channel: text('channel').notNull(),
    threadTs: text('thread_ts').notNull(),
    origin: text('origin').$type<RunRecord['origin']>().notNull(),
    status: text('status').$type<RunStatus>().notNull(),
    currentPlanVersion: integer('current_plan_version'),
    replans: integer('replans').notNull().default(0),
    boardRef: text('board_ref'),
    summary: jsonb('summary').$type<Record<string, unknown>>(),
    /** Incremented in the same transaction as each event insert, so events are gap-free and ordered per run. */
    eventSeq: integer('event_seq').notNull().default(0),
    leaseOwner: text('lease_owner'),
    leaseUntil: at('lease_until'),
    /** The inbox entry (Slack request) that started the run: a request handled again after a crash finds its run. */
    requestId: text('request_id').unique(),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
    finishedAt: at('finished_at'),
    /** When `tandem prune` removed the run's bulky rows (events, outputs, delivered messages); audit facts stay. */
    prunedAt: at('pruned_at'),
    /** W3C trace-context ids of the run's trace and root span: any replica that resumes the run continues the same trace. */
    traceId: text('trace_id'),
    traceSpanId: text('trace_span_id'),
  },
  (t) => [
    index('runs_status_idx').on(t.status),
    /** `tandem runs` and every listing read the newest runs first: without it, each listing sorts the whole table. */
    index('runs_created_idx').on(t.createdAt, t.id),
    /** Each replica's dead-owner sweep (every 5 s) reads the live leases: the few open runs, not months of ended ones. */
    index('runs_lease_idx').on(t.leaseUntil),
    index('runs_finished_idx').on(t.finishedAt),
    index('runs_conversation_idx').on(t.channel, t.threadTs),
    index('runs_requester_idx').on(t.requester, t.createdAt),
  ],
);

export const planVersions = pgTable(
  'plan_versions',
  {
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    /** Parsed with PlanSchema on every read: a row may hold an older schemaVersion. */
    plan: jsonb('plan').$type<unknown>().notNull(),
    authorKind: text('author_kind').$type<PlanAuthorKind>().notNull(),
    authorId: text('author_id').notNull(),
    parentVersion: integer('parent_version'),
    /** Words with people as data (a JSON string in rows written before they were). */
    reason: jsonb('reason').$type<Text>(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.version] })],
);

export const approvals = pgTable(
  'approvals',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    planVersion: integer('plan_version').notNull(),
    userId: text('user_id').notNull(),
    decision: text('decision').$type<ApprovalRecord['decision']>().notNull(),
    /** 'person': a click, checked against `need`; 'auto': the policy ran the version without one (`why` says which rule). */
    via: text('via').$type<ApprovalRecord['via']>().notNull().default('person'),
    /** Who the approval policy required when the decision was recorded ('anyone' | 'approver' | 'approver-not-requester'). */
    need: text('need').$type<NonNullable<ApprovalRecord['need']>>(),
    why: text('why'),
    /** sha-256 of the version's content the approver saw (plan-digest.ts); null for approvals stored before digests. */
    digest: text('digest'),
    /** Under TANDEM_POLICY (decision 028): the hash of the policy in force (texts in policy_texts) and the rules that permitted the click. */
    policyHash: text('policy_hash'),
    policyRules: jsonb('policy_rules').$type<string[]>(),
    /** The groups (of those the policy names) the approver was in at the click: the audit judges with them, not today's. */
    policyGroups: jsonb('policy_groups').$type<string[]>(),
    createdAt: createdAt(),
  },
  (t) => [index('approvals_run_idx').on(t.runId)],
);

export const events = pgTable(
  'events',
  {
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    type: text('type').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    at: at('at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.seq] }),
    /**
     * A board and a summary read a run's checks (`step-evaluated`) and its planner fallbacks, not its whole log:
     * a partial index holds only those few rows, so the read skips the rest and other appends never touch it.
     */
    index('events_checks_idx')
      .on(t.runId, t.seq)
      .where(sql`"type" in ('step-evaluated', 'planner-fallback')`),
  ],
);

export const llmUsage = pgTable(
  'llm_usage',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    runId: text('run_id').references(() => runs.id, { onDelete: 'set null' }),
    role: text('role').notNull(),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    inputTokens: integer('input_tokens').notNull(),
    outputTokens: integer('output_tokens').notNull(),
    costUsd: doublePrecision('cost_usd').notNull().default(0),
    at: createdAt(),
  },
  (t) => [index('llm_usage_run_idx').on(t.runId)],
);

/**
 * A person's thumbs up or down on a run's summary: one per (run, person), whichever summary message was
 * clicked. The plan version and its author (planner model or runbook) are copied in so feedback can be
 * summarised per model and per runbook without joining history that may be edited later.
 */
export const runFeedback = pgTable(
  'run_feedback',
  {
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    value: text('value').notNull(),
    planVersion: integer('plan_version').notNull(),
    authorKind: text('author_kind').notNull(),
    authorId: text('author_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.userId] })],
);

/** Policy texts by hash (decision 028): `tandem audit` judges each decision by the policy in force when it was made. */
export const policyTexts = pgTable('policy_texts', {
  hash: text('hash').primaryKey(),
  sources: jsonb('sources').$type<{ file: string; text: string }[]>().notNull(),
  createdAt: createdAt(),
});
