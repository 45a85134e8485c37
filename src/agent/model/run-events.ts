/**
 * The run's event log as data: one zod schema per event type, the payload exactly as it is stored
 * (names and fields are what old rows, `tandem show` and the black-box tests read). Writers may only
 * append a known type with its payload; readers get a discriminated union, and a stored row this
 * version does not know (an older or newer writer) comes back as `unknown` instead of failing the read.
 * Payloads are strict: a row with a field this version does not know is `unknown` too, so nothing a
 * reader prints is silently dropped.
 */
import { z } from 'zod';
import { TextSchema } from '../text/text.ts';
import { RUN_STATUSES, type RunStatus } from './statuses.ts';

const stepKind = z.enum(['forward', 'rollback']);
const runStatus = z.enum(RUN_STATUSES as [RunStatus, ...RunStatus[]]);
const escalationAction = z.enum(['retry', 'skip', 'replan', 'abort']);
const escalationKind = z.enum([
  'evaluation-failed',
  'unchecked',
  'low-confidence',
  'uncertain-side-effect',
  'step-failed',
  'budget',
  'replan-failed',
  'not-approved',
  'rollback-failed',
  'driver-failed',
]);

/** A tool's or a step's error as stored (redacted). */
const errorRecord = z.strictObject({
  message: z.string(),
  transient: z.boolean().optional(),
  uncertain: z.boolean().optional(),
  code: z.string().optional(),
  url: z.string().optional(),
});

/** Where a step's own events point: the run is repeated in the payload (that is how they were always stored). */
const stepKey = { runId: z.string(), planVersion: z.number(), stepId: z.string() };
/** A step's end (`step-succeeded`, `step-failed`, …); a step failed before it started has no attempt. */
const stepEnded = z.strictObject({ ...stepKey, kind: stepKind, attempt: z.number().optional(), error: errorRecord.optional() });
/** An inner call of a step's tool (agent_task's loop). */
const innerCall = { planVersion: z.number(), stepId: z.string(), attempt: z.number(), index: z.number() };
const targetDecided = z.strictObject({ planVersion: z.number(), stepId: z.string(), by: z.string(), targets: z.record(z.string(), z.unknown()) });
/** The policy a Confirm was permitted under (its hash), the rules that permitted it and the confirmer's groups then: what the audit judges it by. */
const confirmGrant = z.strictObject({ hash: z.string(), rules: z.array(z.string()), groups: z.array(z.string()) });
const personOnVersion = { version: z.number(), by: z.string() };

const runEventSchemas = {
  'run-created': z.strictObject({ task: z.string(), requester: z.string(), origin: z.enum(['mention', 'command', 'schedule', 'cli']) }),
  'run-adopted': z.strictObject({ by: z.string(), status: runStatus }),
  'run-paused': z.strictObject({ reason: z.string() }),
  'run-resumed': z.strictObject({}),
  'run-cancel-requested': z.strictObject({ by: z.string() }),
  'run-finished': z.strictObject({ outcome: z.enum(['succeeded', 'failed', 'aborted', 'cancelled', 'rejected', 'expired']), reason: TextSchema.nullable() }),

  'plan-proposed': z.strictObject({
    version: z.number(),
    authorKind: z.enum(['planner', 'human', 'runbook']),
    authorId: z.string(),
    reason: TextSchema.nullable(),
  }),
  'planner-fallback': z.strictObject({ planVersion: z.number(), author: z.string(), reason: z.string() }),
  'questions-asked': z.strictObject({ version: z.number(), questions: z.array(z.string()) }),
  // requestId: the Slack request that carried the answer, so the same request replayed after a crash answers nothing more.
  'question-answered': z.strictObject({ questionId: z.string(), stepId: z.string().nullable(), by: z.string(), requestId: z.string().optional() }),
  /** A person's click, an auto-run rule (`why`), or going ahead from a low-confidence escalation (`via`). */
  'plan-approved': z.strictObject({
    version: z.number().nullable(),
    by: z.string(),
    why: z.string().nullish(),
    via: z.literal('escalation').optional(),
    escalationId: z.string().optional(),
    action: escalationAction.optional(),
  }),
  'plan-rejected': z.strictObject(personOnVersion),
  'plan-edit-started': z.strictObject(personOnVersion),
  'revision-requested': z.strictObject({ ...personOnVersion, instruction: z.string() }),
  'plan-expired': z.strictObject({ version: z.number(), afterMinutes: z.number() }),
  'replan-started': z.strictObject({ reason: TextSchema }),
  'rollback-started': z.strictObject({ steps: z.array(z.string()) }),

  'step-started': z.strictObject({ ...stepKey, kind: stepKind, attempt: z.number(), tool: z.string() }),
  'step-retried': z.strictObject({ ...stepKey, retry: z.number(), delayMs: z.number(), error: errorRecord }),
  'step-evaluated': z.strictObject({
    ...stepKey,
    verdict: z.enum(['pass', 'fail', 'uncertain']),
    reason: z.string(),
    by: z.enum(['output-schema', 'tool-check', 'model']),
  }),
  'step-succeeded': stepEnded,
  'step-failed': stepEnded,
  'step-uncertain': stepEnded,
  'step-cancelled': stepEnded,
  'step-waiting': stepEnded,
  'step-skipped': z.strictObject({ planVersion: z.number(), stepId: z.string(), reason: z.string() }),
  'step-reconciled': z.strictObject({ ...stepKey, attempt: z.number(), found: z.literal('done') }),
  'step-requeued': z.strictObject({ ...stepKey, attempt: z.number(), why: z.string() }),

  'agent-call': z.strictObject({
    ...innerCall,
    tool: z.string(),
    args: z.unknown(),
    ok: z.boolean(),
    refused: z.string().optional(),
    error: z.string().optional(),
    output: z.record(z.string(), z.unknown()).optional(),
  }),
  'agent-call-retried': z.strictObject({ ...innerCall, retry: z.number(), delayMs: z.number(), error: errorRecord }),

  'confirmation-requested': z.strictObject({
    planVersion: z.number(),
    stepId: z.string(),
    targets: z.record(z.string(), z.unknown()),
    lateBound: z.array(z.string()),
  }),
  'target-confirmed': targetDecided.extend({ policy: confirmGrant.optional() }),
  'target-aborted': targetDecided,
  'escalation-opened': z.strictObject({ escalationId: z.string(), kind: escalationKind, stepId: z.string().nullish(), message: TextSchema }),
  'escalation-resolved': z.strictObject({ escalationId: z.string(), action: escalationAction, by: z.string() }),
  /** A wait for a person handed to `to` by `by` (Reassign); `key` names the wait within its kind (waits/addressee.ts). */
  'wait-reassigned': z.strictObject({
    wait: z.enum(['approval', 'escalation', 'question', 'confirm']),
    key: z.string(),
    to: z.string(),
    from: z.string().nullable(),
    by: z.string(),
  }),
};

export type RunEventType = keyof typeof runEventSchemas;
export type RunEventData<T extends RunEventType> = z.infer<(typeof runEventSchemas)[T]>;

/** An event as a writer gives it: a known type with its payload. */
export type RunEventInput = { [T in RunEventType]: { type: T; data: RunEventData<T> } }[RunEventType];

/** The same as positional arguments `(type, data)`, so `append('step-started', {…})` is checked against that type's payload. */
export type RunEventArgs = { [T in RunEventType]: [type: T, data: RunEventData<T>] }[RunEventType];

/** `(type, data)` as one event value; the arguments are checked against each other, the pair is what TypeScript cannot narrow. */
export const runEvent = (...[type, data]: RunEventArgs): RunEventInput => ({ type, data }) as RunEventInput;

/** A stored row this version cannot read as a known event: kept, with its stored type and payload, for `tandem show`. */
export interface UnknownRunEvent {
  type: 'unknown';
  storedType: string;
  data: Record<string, unknown>;
}

export type RunEvent = (RunEventInput | UnknownRunEvent) & { runId: string; seq: number; at: Date };

export const RUN_EVENT_TYPES = Object.keys(runEventSchemas) as RunEventType[];

function isKnownType(type: string): type is RunEventType {
  return Object.hasOwn(runEventSchemas, type);
}

/** Reads a stored row; never throws (an unknown type or a payload that does not fit is an `unknown` event). */
export function parseRunEvent(row: { runId: string; seq: number; type: string; data: unknown; at: Date }): RunEvent {
  const where = { runId: row.runId, seq: row.seq, at: row.at };
  if (isKnownType(row.type)) {
    const parsed = runEventSchemas[row.type].safeParse(row.data);
    if (parsed.success) return { ...where, type: row.type, data: parsed.data } as RunEvent;
  }
  const data = row.data && typeof row.data === 'object' && !Array.isArray(row.data) ? (row.data as Record<string, unknown>) : { value: row.data };
  return { ...where, type: 'unknown', storedType: row.type, data };
}

export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;

/** The events of one type, typed as that type (a row that did not parse is never among them). */
export function eventsOfType<T extends RunEventType>(events: readonly RunEvent[], type: T): RunEventOf<T>[] {
  return events.filter((event): event is RunEventOf<T> => event.type === type);
}

/** The type name as stored: what `tandem show` prints for any event. */
export function storedTypeOf(event: RunEvent): string {
  return event.type === 'unknown' ? event.storedType : event.type;
}

/** The same event with its payload passed through `map`, which keeps the payload's shape (redaction does). */
export function mapEventData<E extends RunEventInput>(event: E, map: <D>(data: D) => D): E {
  return { ...event, data: map(event.data) };
}

/** `mapEventData` for an event given as positional arguments. */
export function mapEventArgs<A extends RunEventArgs>(event: A, map: <D>(data: D) => D): A {
  return [event[0], map(event[1])] as A;
}

/**
 * The events `tandem audit` reads (audit/run-facts.ts): the calls an `agent_task` made, held against TANDEM_REPOS,
 * and each Confirm's policy grant. `tandem prune` keeps these and removes the rest of a finished run's log.
 */
export const AUDITED_EVENT_TYPES = ['agent-call', 'target-confirmed'] as const satisfies readonly RunEventType[];
