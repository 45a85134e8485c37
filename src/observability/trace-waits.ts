/** The traced store's wait spans: each wait for a person, from when it was asked to when it was answered, and by whom. */
import type { QuestionRecord } from '../agent/ports/run-store.ts';
import { randomSpanId, runSpans } from './span-ids.ts';
import type { Overrides, Recording } from './trace-recording.ts';

/** Each wait for a person, from when it was asked to when it was answered, and by whom. */
export function waitSpans(recording: Recording): Overrides {
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

interface Wait {
  kind: string;
  planVersion: number | null;
  stepId: string | null;
  startedAt: Date;
  endedAt?: Date | undefined;
  answeredBy: string | undefined;
  outcome: string;
}
