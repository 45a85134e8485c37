import type { EventsPort } from '../agent/ports/events.ts';
import type { HumanInputPort } from '../agent/ports/human-input.ts';
import type { LeasesPort } from '../agent/ports/leases.ts';
import type { OpeningsPort } from '../agent/ports/openings.ts';
import type { OutboxPort } from '../agent/ports/outbox.ts';
import type { PlansPort } from '../agent/ports/plans.ts';
import type { RunStore } from '../agent/ports/run-store.ts';
import type { RunsPort } from '../agent/ports/runs.ts';
import type { StepsPort } from '../agent/ports/steps.ts';
import type { SummaryPort } from '../agent/ports/summary.ts';
import type { UsagePort } from '../agent/ports/usage.ts';
import type { Db } from './database.ts';
import { decideConfirmation, requestConfirmation, selectConfirmations } from './human-input/confirmations-repository.ts';
import { appendEvent, appendEvents, appendToRuns, selectEvents } from './runs/events-repository.ts';
import { adoptRuns, claimRunLease, releaseRunLease, renewLeases } from './leases/leases-repository.ts';
import {
  expireEscalation,
  insertEscalation,
  resolveEscalation,
  selectEscalation,
  selectEscalations,
  selectOpenEscalations,
} from './human-input/escalations-repository.ts';
import { insertApproval, insertPlanVersion, selectApprovals, selectPlanVersion, selectPlanVersions } from './plans/plans-repository.ts';
import { recordAnswer, recordDecision } from './plans/decisions-repository.ts';
import { claimReminder } from './human-input/reminders-repository.ts';
import { selectWaitMessages, upsertWaitMessage } from './human-input/wait-messages-repository.ts';
import { claimOwed, deferOwed, finishRunRecord, insertOwed, markOwedSent } from './delivery/outbox-repository.ts';
import { answerOldestQuestion, insertQuestion, selectQuestions } from './human-input/questions-repository.ts';
import { insertRun, patchRun, selectRun, selectRunByConversation, selectRunByRequest, selectRuns, transitionRunStatus } from './runs/runs-repository.ts';
import { insertSteps, selectAttempts, selectSteps, setStepStatus } from './steps/steps-repository.ts';
import { requeueInterruptedSteps, selectRunningSteps } from './steps/interrupted-steps.ts';
import { writeStepTransitions } from './steps/step-transitions.ts';
import { selectBoardSource, selectSummarySource } from './runs/summary-repository.ts';
import { selectPassOpenings, selectTokensOf } from './runs/pass-openings-repository.ts';
import { selectRunClockFacts } from './runs/run-clock-repository.ts';
import { insertUsage, sumUsage, sumUsageByModel } from './runs/usage-repository.ts';

const runs = (db: Db): RunsPort => ({
  createRun: (input) => insertRun(db, input),
  getRun: (runId) => selectRun(db, runId),
  findRunByConversation: (conversation) => selectRunByConversation(db, conversation),
  findRunByRequest: (requestId) => selectRunByRequest(db, requestId),
  updateRun: (runId, patch) => patchRun(db, runId, patch),
  transitionRun: (runId, from, to) => transitionRunStatus(db, runId, from, to),
  listRuns: (filter) => selectRuns(db, filter),
  finishRun: (input) => finishRunRecord(db, input),
});

const outbox = (db: Db): OutboxPort => ({
  owe: (input) => insertOwed(db, input),
  claimOwed: (input) => claimOwed(db, input),
  markOwedSent: (id) => markOwedSent(db, id),
  deferOwed: (input) => deferOwed(db, input),
  claimReminder: (input) => claimReminder(db, input),
});

const leases = (db: Db): LeasesPort => ({
  claimRunLease: (input) => claimRunLease(db, input),
  adoptRuns: (input) => adoptRuns(db, input),
  renewLeases: (input) => renewLeases(db, input),
  releaseRunLease: (input) => releaseRunLease(db, input),
});

const plans = (db: Db): PlansPort => ({
  addPlanVersion: (input) => insertPlanVersion(db, input),
  getPlanVersion: (runId, version) => selectPlanVersion(db, runId, version),
  listPlanVersions: (runId) => selectPlanVersions(db, runId),
  recordApproval: (input) => insertApproval(db, input),
  listApprovals: (runId) => selectApprovals(db, runId),
  decide: (input) => recordDecision(db, input),
  answer: (input) => recordAnswer(db, input),
});

const steps = (db: Db): StepsPort => ({
  createSteps: (runId, planVersion, newSteps) => insertSteps(db, runId, planVersion, newSteps),
  listSteps: (runId, planVersion) => selectSteps(db, runId, planVersion),
  claimStep: async (input) => (await writeStepTransitions(db, { ...input, claims: [input] })).claimed[0],
  finishStep: async (input) => (await writeStepTransitions(db, { ...input, finish: input, claims: [] })).finished,
  finishStepAndClaim: (finish, claims) => writeStepTransitions(db, { runId: finish.runId, planVersion: finish.planVersion, finish, claims }),
  setStepStatus: (input) => setStepStatus(db, input),
  listAttempts: (runId) => selectAttempts(db, runId),
  listRunningSteps: (runIds) => selectRunningSteps(db, runIds),
  requeueInterrupted: (attempts, why) => requeueInterruptedSteps(db, attempts, why),
});

const events = (db: Db): EventsPort => ({
  appendEvent: (runId, type, data) => appendEvent(db, runId, type, data),
  appendEvents: (runId, batch) => appendEvents(db, runId, batch),
  appendToRuns: (entries) => appendToRuns(db, entries),
  listEvents: (runId) => selectEvents(db, runId),
});

const humanInput = (db: Db): HumanInputPort => ({
  openEscalation: (input, owed) => insertEscalation(db, input, owed),
  getEscalation: (id) => selectEscalation(db, id),
  listEscalations: (runId) => selectEscalations(db, runId),
  listOpenEscalations: (input) => selectOpenEscalations(db, input),
  resolveEscalation: (input) => resolveEscalation(db, input),
  expireEscalation: (id) => expireEscalation(db, id),
  openQuestion: (input, owed) => insertQuestion(db, input, owed),
  listQuestions: (runId) => selectQuestions(db, runId),
  answerQuestion: (input) => answerOldestQuestion(db, input),
  requestConfirmation: (input) => requestConfirmation(db, input),
  decideConfirmation: (input) => decideConfirmation(db, input),
  listConfirmations: (runId) => selectConfirmations(db, runId),
  recordWaitMessage: (input) => upsertWaitMessage(db, input),
  listWaitMessages: (runId) => selectWaitMessages(db, runId),
});

const usage = (db: Db): UsagePort => ({
  recordUsage: (record) => insertUsage(db, record),
  usageTotals: (runId) => sumUsage(db, runId),
  usageByModel: (runId) => sumUsageByModel(db, runId),
});

const summary = (db: Db): SummaryPort => ({
  summarySource: (runId) => selectSummarySource(db, runId),
  boardSource: (runId) => selectBoardSource(db, runId),
});

const openings = (db: Db): OpeningsPort => ({
  passOpenings: (runIds) => selectPassOpenings(db, runIds),
  tokensOf: (runIds) => selectTokensOf(db, runIds),
  clockFactsOf: (runIds) => selectRunClockFacts(db, runIds),
});

/** The agent's `RunStore` on our tables, one role at a time; each call is one committed fact. */
export function createRunStore(db: Db): RunStore {
  return {
    ...runs(db),
    ...outbox(db),
    ...leases(db),
    ...plans(db),
    ...steps(db),
    ...events(db),
    ...humanInput(db),
    ...usage(db),
    ...summary(db),
    ...openings(db),
  };
}
