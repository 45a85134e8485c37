/** The traced store's spans recorded when a run ends: its planning rounds, plan versions and root span. */
import { FINAL_RUN_STATUSES, type RunRecord, type RunStore } from '../agent/ports/run-store.ts';
import type { RunTrace, SpanAttributes } from '../agent/ports/tracer.ts';
import { planningRounds } from './planning-rounds.ts';
import { runSpans } from './span-ids.ts';
import { MAX_REMEMBERED, type Overrides, type Recording } from './trace-recording.ts';

/** The run's end, whichever store call ended it: its planning rounds, plan versions and root span. `inner`: overrides it wraps. */
export function runEndSpans(recording: Recording, inner: Overrides): Overrides {
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
