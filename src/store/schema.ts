import { sql } from 'drizzle-orm';
import type { PlanAuthorKind } from '../agent/plan.ts';
import type {
  ApprovalRecord,
  ConfirmationRecord,
  EscalationAction,
  EscalationRecord,
  RunRecord,
  RunStatus,
  StepAttemptRecord,
  StepErrorRecord,
  StepKind,
  StepStatus,
} from '../agent/ports/run-store.ts';
import type { Risk } from '../agent/ports/tool.ts';
import { bigint, boolean, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

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
  },
  (t) => [
    index('runs_status_idx').on(t.status),
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
    reason: text('reason'),
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
    createdAt: createdAt(),
  },
  (t) => [index('approvals_run_idx').on(t.runId)],
);

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
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);

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
    message: text('message').notNull(),
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
