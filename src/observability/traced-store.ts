import { decorate } from '../agent/ports/decorate.ts';
import { FINAL_RUN_STATUSES, type FinishStepInput, type QuestionRecord, type RunRecord, type RunStore, type StepRecord } from '../agent/ports/run-store.ts';
import { stepAttemptHooks } from './step-hooks.ts';
import type { RunTrace, RunTracer, SpanAttributes } from '../agent/ports/tracer.ts';
import { redactText } from '../agent/text/redact.ts';
import { randomSpanId, runSpans } from './span-ids.ts';
import { planningRounds } from './planning-rounds.ts';

export interface TracedStoreOptions {
  tracer: RunTracer;
  secrets: readonly string[];
  /** TANDEM_TRACE_CONTENT=on: the run's task (redacted) on its root span. */
  content: boolean;
  /** Tracing must never fail a store call: what went wrong is only noted. */
  onError(error: unknown): void;
}

export interface TracedStore {
  store: RunStore;
  /** The run's stored trace ids (cached; one read per run per process). */
  traceOf(runId: string): Promise<RunTrace | undefined>;
  /** The trace ids of a run this process has seen, without a read: for log lines. */
  knownTrace(runId: string): RunTrace | undefined;
  /** The plan version a planner asked now would produce. */
  nextPlanVersion(runId: string): Promise<number>;
  /** Resolves when the spans being recorded are handed to the tracer. */
  settled(): Promise<void>;
}

/**
 * Records a run's trace from the facts the store keeps, as instrumented-store.ts counts metrics from
 * them, so the agent core needs no tracing code. Every span here is recorded when it ends, by whichever
 * replica's store call ended it (each such call is won by exactly one caller), with the start time the
 * store kept — so a run resumed after a crash still gets its whole tree, under the ids runSpans names:
 * the run (from its creation to its end), each planning round and plan version, each step's attempt,
 * and each wait for a person with who answered. Tool and model calls are live spans (traced-calls.ts).
 */
/** Runs whose trace ids (and whose end) a process keeps in memory. */
const MAX_REMEMBERED = 10_000;

export function traceRunStore(store: RunStore, options: TracedStoreOptions): TracedStore {
  const traces = new Map<string, RunTrace>();
  const pending = new Set<Promise<void>>();
  const remember = (run: RunRecord | undefined) => {
    if (run?.trace) traces.set(run.id, run.trace);
    // Runs another replica ends are never forgotten here: keep the newest, a read brings an old one back.
    if (traces.size > MAX_REMEMBERED) traces.delete(traces.keys().next().value!);
    return run;
  };
  const recording: Recording = {
    store,
    tracer: options.tracer,
    content: options.content,
    redact: (text) => redactText(text, options.secrets),
    traceOf: async (runId) => traces.get(runId) ?? remember(await store.getRun(runId))?.trace,
    remember,
    forget: (runId) => void traces.delete(runId),
    later(work) {
      const running = work().catch(options.onError);
      const settled = running.finally(() => pending.delete(settled));
      pending.add(settled);
    },
  };
  const overrides: Partial<RunStore> = {
    async createRun(input) {
      return remember(await store.createRun(input))!;
    },
    async getRun(runId) {
      return remember(await store.getRun(runId));
    },
    ...stepSpans(recording),
    ...waitSpans(recording),
  };
  return {
    store: decorate(store, { ...overrides, ...runEndSpans(recording, overrides) }),
    traceOf: recording.traceOf,
    knownTrace: (runId) => traces.get(runId),
    async nextPlanVersion(runId) {
      return (await store.listPlanVersions(runId)).length + 1;
    },
    async settled() {
      while (pending.size) await Promise.all(pending);
    },
  };
}

/** What the span groups below share. */
interface Recording {
  store: RunStore;
  tracer: RunTracer;
  content: boolean;
  redact(text: string): string;
  traceOf(runId: string): Promise<RunTrace | undefined>;
  remember(run: RunRecord | undefined): RunRecord | undefined;
  forget(runId: string): void;
  /** In the background, never throwing: the store call that triggered it has already returned. */
  later(work: () => Promise<void>): void;
}

type Overrides = Partial<RunStore>;

/** Each step's attempt, from its claim to its finish. */
function stepSpans({ store, tracer, traceOf, later, redact }: Recording): Overrides {
  const attemptStarts = new Map<string, { startedAt: Date; tool: string; kind: string }>();
  const started = (step: StepRecord) => attemptStarts.set(attemptKey(step), { startedAt: step.startedAt ?? new Date(), tool: step.tool, kind: step.kind });
  const recordAttempt = (input: FinishStepInput) =>
    later(async () => {
      const trace = await traceOf(input.runId);
      if (!trace) return;
      const key = attemptKey(input);
      const start = attemptStarts.get(key) ?? (await attemptFromStore(store, input));
      attemptStarts.delete(key);
      if (!start) return;
      tracer.record(
        { traceId: trace.traceId, spanId: runSpans.step(trace, input), parentSpanId: runSpans.plan(trace, input.planVersion) },
        {
          name: `step ${input.stepId}`,
          startedAt: start.startedAt,
          endedAt: new Date(),
          attributes: {
            'tandem.run.id': input.runId,
            'tandem.plan.version': input.planVersion,
            'tandem.step.id': input.stepId,
            'tandem.step.kind': start.kind,
            'tandem.step.tool': start.tool,
            'tandem.step.attempt': input.attempt,
            'tandem.step.status': input.status,
            'tandem.step.error_code': input.error?.code,
          },
          ...(input.status === 'failed' || input.status === 'uncertain' ? { error: redact(input.error?.message ?? input.status) } : {}),
        },
      );
    });
  return stepAttemptHooks(store, { started, ended: recordAttempt });
}

/** Each wait for a person, from when it was asked to when it was answered, and by whom. */
function waitSpans(recording: Recording): Overrides {
  const { store, later } = recording;
  const recordWait = (runId: string, wait: Wait) => recordWaitSpan(recording, runId, wait);
  const approvalWait = (runId: string, version: number | null, outcome: string, by: string | undefined) =>
    later(async () => {
      const planned = version === null ? undefined : await store.getPlanVersion(runId, version);
      if (planned) recordWait(runId, { kind: 'approval', planVersion: planned.version, stepId: null, startedAt: planned.createdAt, answeredBy: by, outcome });
    });
  const escalationWait = (id: string) =>
    later(async () => {
      const escalation = await store.getEscalation(id);
      if (escalation?.status !== 'resolved') return;
      recordWait(escalation.runId, {
        kind: `escalation ${escalation.kind}`,
        planVersion: escalation.planVersion,
        stepId: escalation.stepId,
        startedAt: escalation.createdAt,
        endedAt: escalation.resolvedAt ?? undefined,
        answeredBy: escalation.resolvedBy ?? undefined,
        outcome: escalation.resolution ?? 'resolved',
      });
    });
  const questionWait = (question: QuestionRecord | undefined) => {
    if (!question) return;
    recordWait(question.runId, {
      kind: 'question',
      planVersion: question.planVersion,
      stepId: question.stepId,
      startedAt: question.createdAt,
      endedAt: question.answeredAt ?? undefined,
      answeredBy: question.answeredBy ?? undefined,
      outcome: 'answered',
    });
  };
  return {
    async decide(input) {
      const decided = await store.decide(input);
      if (!decided.ok) return decided;
      const { event } = input;
      if (event.type === 'plan-approved' || event.type === 'plan-rejected') {
        approvalWait(input.runId, input.planVersion, event.type === 'plan-approved' ? 'approved' : 'rejected', event.data.by);
      }
      if (input.escalation) escalationWait(input.escalation.id);
      return decided;
    },
    async appendEvent(runId, ...event) {
      const stored = await store.appendEvent(runId, ...event);
      if (stored.type === 'plan-expired') approvalWait(runId, stored.data.version, 'expired', undefined);
      return stored;
    },
    async answer(input) {
      const answered = await store.answer(input);
      if (answered.ok) questionWait(answered.value);
      return answered;
    },
    async answerQuestion(input) {
      const question = await store.answerQuestion(input);
      questionWait(question);
      return question;
    },
    async resolveEscalation(input) {
      const resolved = await store.resolveEscalation(input);
      if (resolved) escalationWait(input.id);
      return resolved;
    },
    async decideConfirmation(input) {
      const decided = await store.decideConfirmation(input);
      if (decided) {
        recordWait(decided.runId, {
          kind: 'confirm',
          planVersion: decided.planVersion,
          stepId: decided.stepId,
          startedAt: decided.createdAt,
          endedAt: decided.decidedAt ?? undefined,
          answeredBy: decided.decidedBy ?? undefined,
          outcome: decided.status,
        });
      }
      return decided;
    },
  };
}

/** A wait for a person, recorded when it ended. */
function recordWaitSpan({ tracer, traceOf, later }: Recording, runId: string, wait: Wait): void {
  later(async () => {
    const trace = await traceOf(runId);
    if (!trace) return;
    const parentSpanId = wait.planVersion === null ? runSpans.root(trace) : runSpans.plan(trace, wait.planVersion);
    tracer.record(
      // A wait is the parent of nothing: a random id is enough.
      { traceId: trace.traceId, spanId: randomSpanId(), parentSpanId },
      {
        name: `wait ${wait.kind}`,
        startedAt: wait.startedAt,
        endedAt: wait.endedAt ?? new Date(),
        attributes: {
          'tandem.run.id': runId,
          'tandem.plan.version': wait.planVersion ?? undefined,
          'tandem.step.id': wait.stepId ?? undefined,
          'tandem.wait.kind': wait.kind,
          'tandem.wait.answered_by': wait.answeredBy ?? undefined,
          'tandem.wait.outcome': wait.outcome,
        },
      },
    );
  });
}

/** The run's end, whichever store call ended it: its planning rounds, plan versions and root span. `inner`: overrides it wraps. */
function runEndSpans(recording: Recording, inner: Overrides): Overrides {
  const { store, later } = recording;
  const ended = new Set<string>();
  const runEnded = (runId: string) => {
    if (ended.has(runId)) return;
    ended.add(runId);
    if (ended.size > MAX_REMEMBERED) ended.delete(ended.values().next().value!);
    later(async () => {
      const run = recording.remember(await store.getRun(runId));
      if (!run?.trace) return;
      await recordRunEnd(store, run, run.trace, recording);
      recording.forget(runId);
    });
  };
  const decide = inner.decide ?? store.decide.bind(store);
  return {
    async decide(input) {
      const decided = await decide(input);
      if (decided.ok && input.to && FINAL_RUN_STATUSES.includes(input.to)) runEnded(input.runId);
      return decided;
    },
    async updateRun(runId, patch) {
      const run = await store.updateRun(runId, patch);
      if (patch.status && FINAL_RUN_STATUSES.includes(patch.status)) runEnded(runId);
      return run;
    },
    async finishRun(input) {
      const run = await store.finishRun(input);
      if (run) runEnded(input.runId);
      return run;
    },
    async transitionRun(runId, from, to) {
      const moved = await store.transitionRun(runId, from, to);
      if (moved && FINAL_RUN_STATUSES.includes(to)) runEnded(runId);
      return moved;
    },
  };
}

interface Wait {
  kind: string;
  planVersion: number | null;
  stepId: string | null;
  startedAt: Date;
  endedAt?: Date | undefined;
  answeredBy: string | undefined;
  outcome: string;
}

const attemptKey = (at: { runId: string; planVersion: number; stepId: string; attempt: number }) => `${at.runId}/${at.planVersion}/${at.stepId}/${at.attempt}`;

/** A step claimed by another process (before a restart): its attempt's start as stored. */
async function attemptFromStore(store: RunStore, input: FinishStepInput): Promise<{ startedAt: Date; tool: string; kind: string } | undefined> {
  const [attempts, steps] = await Promise.all([store.listAttempts(input.runId), store.listSteps(input.runId, input.planVersion)]);
  const attempt = attempts.find((a) => a.planVersion === input.planVersion && a.stepId === input.stepId && a.attempt === input.attempt);
  const step = steps.find((s) => s.stepId === input.stepId);
  return attempt && step ? { startedAt: attempt.startedAt, tool: step.tool, kind: step.kind } : undefined;
}

/**
 * The run has ended: its planning rounds, its plan versions (each from its creation to the next one's,
 * the last to the run's end) and the run's root span, all from what the store kept.
 */
async function recordRunEnd(store: RunStore, run: RunRecord, trace: RunTrace, options: Pick<Recording, 'tracer' | 'redact' | 'content'>): Promise<void> {
  const { tracer } = options;
  const endedAt = run.finishedAt ?? new Date();
  const [versions, events] = await Promise.all([store.listPlanVersions(run.id), store.listEvents(run.id)]);
  const failed = run.status === 'failed' || run.status === 'aborted';
  const runAttributes: SpanAttributes = { 'tandem.run.id': run.id };

  for (const round of planningRounds(events, { createdAt: run.createdAt, endedAt })) {
    tracer.record(
      { traceId: trace.traceId, spanId: runSpans.planning(trace, round.version), parentSpanId: trace.rootSpanId },
      {
        name: 'planning',
        startedAt: round.startedAt,
        endedAt: round.endedAt,
        attributes: {
          ...runAttributes,
          'tandem.plan.version': round.version,
          'tandem.plan.author_kind': round.authorKind,
          'tandem.planning.trigger': round.trigger,
        },
        ...(round.authorKind === undefined ? { error: 'no plan was proposed' } : {}),
      },
    );
  }
  versions.forEach((version, index) => {
    tracer.record(
      { traceId: trace.traceId, spanId: runSpans.plan(trace, version.version), parentSpanId: trace.rootSpanId },
      {
        name: `plan v${version.version}`,
        startedAt: version.createdAt,
        endedAt: versions[index + 1]?.createdAt ?? endedAt,
        attributes: {
          ...runAttributes,
          'tandem.plan.version': version.version,
          'tandem.plan.author_kind': version.authorKind,
          'tandem.plan.author': version.authorId,
          'tandem.plan.steps': version.plan.steps.length,
          'tandem.plan.confidence': version.plan.confidence,
        },
      },
    );
  });
  tracer.record(
    { traceId: trace.traceId, spanId: trace.rootSpanId, parentSpanId: null },
    {
      name: 'run',
      startedAt: run.createdAt,
      endedAt,
      attributes: {
        ...runAttributes,
        'tandem.run.origin': run.origin,
        'tandem.run.requester': run.requester,
        'tandem.run.outcome': run.status,
        'tandem.run.replans': run.replans,
        'tandem.run.plan_versions': versions.length,
        'tandem.run.task': options.content ? options.redact(run.task) : undefined,
      },
      ...(failed ? { error: `run ${run.status}` } : {}),
    },
  );
}
