import type { RunStore } from '../agent/ports/run-store.ts';
import type { Db } from './database.ts';
import { decideConfirmation, requestConfirmation, selectConfirmations } from './confirmations-repository.ts';
import { appendEvent, selectEvents } from './events-repository.ts';
import { adoptRuns, claimRunLease, releaseRunLease, renewLeases } from './leases-repository.ts';
import { insertEscalation, resolveEscalation, selectEscalation, selectEscalations } from './escalations-repository.ts';
import { insertApproval, insertPlanVersion, selectApprovals, selectPlanVersion, selectPlanVersions } from './plans-repository.ts';
import { recordAnswer, recordDecision } from './decisions-repository.ts';
import { claimReminder } from './reminders-repository.ts';
import { claimOwed, deferOwed, finishRunRecord, insertOwed, markOwedSent } from './outbox-repository.ts';
import { answerOldestQuestion, insertQuestion, selectQuestions } from './questions-repository.ts';
import { insertRun, patchRun, selectRun, selectRunByConversation, selectRunByRequest, selectRuns, transitionRunStatus } from './runs-repository.ts';
import { claimStep, finishStep, insertSteps, selectAttempts, selectSteps, setStepStatus } from './steps-repository.ts';
import { insertUsage, sumUsage, sumUsageByModel } from './usage-repository.ts';

/** The agent's `RunStore` port on our tables; each call is one committed fact. */
export function createRunStore(db: Db): RunStore {
  return {
    createRun: (input) => insertRun(db, input),
    getRun: (runId) => selectRun(db, runId),
    findRunByConversation: (conversation) => selectRunByConversation(db, conversation),
    findRunByRequest: (requestId) => selectRunByRequest(db, requestId),
    updateRun: (runId, patch) => patchRun(db, runId, patch),
    transitionRun: (runId, from, to) => transitionRunStatus(db, runId, from, to),
    listRuns: (filter) => selectRuns(db, filter),
    finishRun: (input) => finishRunRecord(db, input),
    owe: (input) => insertOwed(db, input),
    claimOwed: (input) => claimOwed(db, input),
    markOwedSent: (id) => markOwedSent(db, id),
    deferOwed: (input) => deferOwed(db, input),
    claimRunLease: (input) => claimRunLease(db, input),
    adoptRuns: (input) => adoptRuns(db, input),
    renewLeases: (input) => renewLeases(db, input),
    releaseRunLease: (input) => releaseRunLease(db, input),

    addPlanVersion: (input) => insertPlanVersion(db, input),
    getPlanVersion: (runId, version) => selectPlanVersion(db, runId, version),
    listPlanVersions: (runId) => selectPlanVersions(db, runId),

    recordApproval: (input) => insertApproval(db, input),
    listApprovals: (runId) => selectApprovals(db, runId),
    decide: (input) => recordDecision(db, input),
    answer: (input) => recordAnswer(db, input),

    createSteps: (runId, planVersion, steps) => insertSteps(db, runId, planVersion, steps),
    listSteps: (runId, planVersion) => selectSteps(db, runId, planVersion),
    claimStep: (input) => claimStep(db, input),
    finishStep: (input) => finishStep(db, input),
    setStepStatus: (input) => setStepStatus(db, input),
    listAttempts: (runId) => selectAttempts(db, runId),

    appendEvent: (runId, type, data) => appendEvent(db, runId, type, data),
    listEvents: (runId) => selectEvents(db, runId),

    openEscalation: (input, owed) => insertEscalation(db, input, owed),
    getEscalation: (id) => selectEscalation(db, id),
    listEscalations: (runId) => selectEscalations(db, runId),
    resolveEscalation: (input) => resolveEscalation(db, input),

    openQuestion: (input, owed) => insertQuestion(db, input, owed),
    listQuestions: (runId) => selectQuestions(db, runId),
    answerQuestion: (input) => answerOldestQuestion(db, input),

    requestConfirmation: (input) => requestConfirmation(db, input),
    decideConfirmation: (input) => decideConfirmation(db, input),
    listConfirmations: (runId) => selectConfirmations(db, runId),

    recordUsage: (usage) => insertUsage(db, usage),
    usageTotals: (runId) => sumUsage(db, runId),
    usageByModel: (runId) => sumUsageByModel(db, runId),

    claimReminder: (input) => claimReminder(db, input),
  };
}
