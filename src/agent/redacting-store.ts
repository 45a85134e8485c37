/**
 * Secrets never reach the database: every text the agent stores that a person or a model wrote
 * (task, plans, reasons, questions, answers, event data, summaries) passes through redaction here,
 * in one place, whatever code path stores it. Tool outputs and args are also redacted where recorded.
 */
import type { RunStore } from './ports/run-store.ts';
import { redactText, redactValue } from './redact.ts';
import { mapEventArgs, mapEventData } from './run-events.ts';

export function redactingStore(store: RunStore, secrets: readonly string[]): RunStore {
  const text = (value: string) => redactText(value, secrets);
  const redact = <T>(value: T) => redactValue(value, secrets);
  const overrides: Partial<RunStore> = {
    createRun: (input) => store.createRun({ ...input, task: text(input.task) }),
    finishRun: (input) =>
      store.finishRun({
        ...input,
        summary: redactValue(input.summary, secrets),
        event: mapEventData(input.event, redact),
        owe: input.owe.map((m) => ({ ...m, payload: redactValue(m.payload, secrets) })),
      }),
    owe: (input) => store.owe({ ...input, owe: input.owe.map((m) => ({ ...m, payload: redactValue(m.payload, secrets) })) }),
    updateRun: (runId, patch) => store.updateRun(runId, patch.summary ? { ...patch, summary: redactValue(patch.summary, secrets) } : patch),
    addPlanVersion: (input) =>
      store.addPlanVersion({ ...input, plan: redactValue(input.plan, secrets), reason: input.reason === null ? null : text(input.reason) }),
    createSteps: (runId, version, steps) =>
      store.createSteps(
        runId,
        version,
        steps.map((step) => ({ ...step, title: text(step.title), plannedArgs: redactValue(step.plannedArgs, secrets) })),
      ),
    appendEvent: (runId, ...event) => store.appendEvent(runId, ...mapEventArgs(event, redact)),
    openEscalation: (input, owed) =>
      store.openEscalation({ ...input, message: text(input.message) }, owed && { ...owed, payload: redactValue(owed.payload, secrets) }),
    openQuestion: (input, owed) =>
      store.openQuestion({ ...input, question: text(input.question) }, owed && { ...owed, payload: redactValue(owed.payload, secrets) }),
    requestConfirmation: (input) => store.requestConfirmation({ ...input, targets: redactValue(input.targets, secrets) }),
    answerQuestion: (input) => store.answerQuestion({ ...input, answer: text(input.answer) }),
    answer: (input) => store.answer({ ...input, answer: text(input.answer) }),
    decide: (input) => store.decide({ ...input, event: mapEventData(input.event, redact) }),
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      const own = overrides[property as keyof RunStore];
      if (own) return own;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
