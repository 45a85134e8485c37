import { decorate } from '../agent/ports/decorate.ts';
import type { FinishStepInput, RunRecord, RunStore, StepRecord } from '../agent/ports/run-store.ts';
import { stepAttemptHooks } from './step-hooks.ts';
import type { RunTrace, RunTracer } from '../agent/ports/tracer.ts';
import { redactText } from '../agent/text/redact.ts';
import { runSpans } from './span-ids.ts';
import { MAX_REMEMBERED, type Overrides, type Recording } from './trace-recording.ts';
import { waitSpans } from './trace-waits.ts';
import { runEndSpans } from './trace-run-end.ts';

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
 * and each wait for a person with who answered (trace-waits.ts, trace-run-end.ts). Tool and model calls
 * are live spans (traced-calls.ts).
 */
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

const attemptKey = (at: { runId: string; planVersion: number; stepId: string; attempt: number }) => `${at.runId}/${at.planVersion}/${at.stepId}/${at.attempt}`;

/** A step claimed by another process (before a restart): its attempt's start as stored. */
async function attemptFromStore(store: RunStore, input: FinishStepInput): Promise<{ startedAt: Date; tool: string; kind: string } | undefined> {
  const [attempts, steps] = await Promise.all([store.listAttempts(input.runId), store.listSteps(input.runId, input.planVersion)]);
  const attempt = attempts.find((a) => a.planVersion === input.planVersion && a.stepId === input.stepId && a.attempt === input.attempt);
  const step = steps.find((s) => s.stepId === input.stepId);
  return attempt && step ? { startedAt: attempt.startedAt, tool: step.tool, kind: step.kind } : undefined;
}
