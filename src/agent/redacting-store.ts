/**
 * Secrets never reach the database: every text the agent stores that a person or a model wrote
 * (task, plans, reasons, questions, answers, event data, summaries) passes through redaction here,
 * in one place, whatever code path stores it. Tool outputs and args are also redacted where recorded.
 * Per role, only the methods that store text are wrapped; reads and claims go to the store unchanged.
 */
import { decorate } from './ports/decorate.ts';
import type { EventsPort } from './ports/events.ts';
import type { HumanInputPort } from './ports/human-input.ts';
import type { NewOwedMessage, OutboxPort } from './ports/outbox.ts';
import type { PlansPort } from './ports/plans.ts';
import type { RunStore } from './ports/run-store.ts';
import type { RunsPort } from './ports/runs.ts';
import type { FinishStepInput, StepsPort } from './ports/steps.ts';
import { redactText, redactValue } from './text/redact.ts';
import { mapEventArgs, mapEventData } from './model/run-events.ts';

interface Redact {
  text(value: string): string;
  value<T>(value: T): T;
  owed(messages: readonly NewOwedMessage[]): NewOwedMessage[];
}

function redactor(secrets: readonly string[]): Redact {
  const value = <T>(data: T) => redactValue(data, secrets);
  return {
    text: (text) => redactText(text, secrets),
    value,
    owed: (messages) => messages.map((message) => ({ ...message, payload: value(message.payload) })),
  };
}

const runs = (store: RunsPort, redact: Redact): Partial<RunsPort> => ({
  createRun: (input) =>
    store.createRun({
      ...input,
      task: redact.text(input.task),
      ...(input.created ? { created: { ...input.created, task: redact.text(input.created.task) } } : {}),
    }),
  updateRun: (runId, patch) => store.updateRun(runId, patch.summary ? { ...patch, summary: redact.value(patch.summary) } : patch),
  finishRun: (input) =>
    store.finishRun({
      ...input,
      summary: redact.value(input.summary),
      event: mapEventData(input.event, redact.value),
      owe: redact.owed(input.owe),
    }),
});

const outbox = (store: OutboxPort, redact: Redact): Partial<OutboxPort> => ({
  owe: (input) => store.owe({ ...input, owe: redact.owed(input.owe) }),
});

const plans = (store: PlansPort, redact: Redact): Partial<PlansPort> => ({
  addPlanVersion: (input) => store.addPlanVersion({ ...input, plan: redact.value(input.plan), reason: redact.value(input.reason) }),
  decide: (input) => store.decide({ ...input, event: mapEventData(input.event, redact.value) }),
  answer: (input) => store.answer({ ...input, answer: redact.text(input.answer) }),
});

const steps = (store: StepsPort, redact: Redact): Partial<StepsPort> => {
  const finishing = (input: FinishStepInput): FinishStepInput =>
    input.events ? { ...input, events: input.events.map((event) => mapEventData(event, redact.value)) } : input;
  return {
    finishStep: (input) => store.finishStep(finishing(input)),
    finishStepAndClaim: (finish, claims) => store.finishStepAndClaim(finishing(finish), claims),
    createSteps: (runId, version, newSteps) =>
      store.createSteps(
        runId,
        version,
        newSteps.map((step) => ({ ...step, title: redact.text(step.title), plannedArgs: redact.value(step.plannedArgs) })),
      ),
  };
};

const events = (store: EventsPort, redact: Redact): Partial<EventsPort> => ({
  appendEvent: (runId, ...event) => store.appendEvent(runId, ...mapEventArgs(event, redact.value)),
  appendEvents: (runId, batch) =>
    store.appendEvents(
      runId,
      batch.map((event) => mapEventData(event, redact.value)),
    ),
  appendToRuns: (entries) => store.appendToRuns(entries.map(({ runId, event }) => ({ runId, event: mapEventData(event, redact.value) }))),
});

const humanInput = (store: HumanInputPort, redact: Redact): Partial<HumanInputPort> => ({
  openEscalation: (input, owed) =>
    store.openEscalation({ ...input, message: redact.value(input.message) }, owed && { ...owed, payload: redact.value(owed.payload) }),
  openQuestion: (input, owed) =>
    store.openQuestion({ ...input, question: redact.text(input.question) }, owed && { ...owed, payload: redact.value(owed.payload) }),
  answerQuestion: (input) => store.answerQuestion({ ...input, answer: redact.text(input.answer) }),
  requestConfirmation: (input) => store.requestConfirmation({ ...input, targets: redact.value(input.targets) }),
});

export function redactingStore(store: RunStore, secrets: readonly string[]): RunStore {
  const redact = redactor(secrets);
  return decorate(store, {
    ...runs(store, redact),
    ...outbox(store, redact),
    ...plans(store, redact),
    ...steps(store, redact),
    ...events(store, redact),
    ...humanInput(store, redact),
  });
}
