/**
 * StepsPort in memory: steps-repository.ts and the joined finish-and-claim of step-transitions.ts. A claim
 * is won only by a pending step of an approved version that the run is executing (a rollback step: of an
 * approved version); the claims of a joined write are tried only if its finish stored.
 */
import type { RunEventInput } from '../../model/run-events.ts';
import type { ClaimStepInput, FinishStepInput, StepRecord, StepsPort } from '../../ports/steps.ts';
import { byTick, json, stepKey, text, untick, type MemoryTables, type Ticked, type Write } from './tables.ts';

const SETTLED = ['succeeded', 'failed', 'skipped', 'cancelled', 'uncertain'];

function approvedToRun(tables: MemoryTables, step: StepRecord): boolean {
  const approved = tables.approvals.some((a) => a.runId === step.runId && a.planVersion === step.planVersion && a.decision === 'approved');
  const run = tables.runs.get(step.runId)?.run;
  return approved && (step.kind === 'rollback' || (run?.status === 'executing' && run.currentPlanVersion === step.planVersion));
}

/** setStepStatus: a step not running moves from one of `from` to `to` (also in a decision's write). */
export function moveStep(tables: MemoryTables, input: Parameters<StepsPort['setStepStatus']>[0], write: Write): boolean {
  const step = tables.steps.get(stepKey(input));
  if (!step || !input.from.includes(step.status)) return false;
  if (input.whileRunIs && tables.runs.get(input.runId)?.run.status !== input.whileRunIs) return false;
  Object.assign(step, {
    status: input.to,
    ...(input.output !== undefined ? { output: json(input.output) } : {}),
    ...(input.error !== undefined ? { error: json(input.error) } : {}),
    finishedAt: SETTLED.includes(input.to) ? (step.finishedAt ?? write.now) : null,
    leaseOwner: null,
    leaseUntil: null,
  });
  return true;
}

function finish(tables: MemoryTables, input: FinishStepInput, write: Write): boolean {
  const step = tables.steps.get(stepKey(input));
  if (!step || step.status !== 'running' || step.attempt !== input.attempt) return false;
  const output = json(input.output ?? null);
  const error = json(input.error ?? null);
  Object.assign(step, { status: input.status, output, error, finishedAt: input.status === 'waiting' ? null : write.now, leaseOwner: null, leaseUntil: null });
  const attempt = tables.attempts.find(
    (a) => a.runId === step.runId && a.planVersion === step.planVersion && a.stepId === step.stepId && a.attempt === step.attempt,
  );
  // A waiting step's attempt ended with the pause; the answer settles the step, not the attempt.
  if (attempt)
    Object.assign(attempt, {
      status: input.status === 'waiting' ? 'succeeded' : input.status,
      output: json(output),
      error: json(error),
      finishedAt: write.now,
    });
  return true;
}

function claim(tables: MemoryTables, planVersion: number, input: ClaimStepInput, write: Write): (StepRecord & Ticked) | undefined {
  const step = tables.steps.get(stepKey({ runId: input.runId, planVersion, stepId: input.stepId }));
  if (!step || step.status !== 'pending' || !approvedToRun(tables, step)) return undefined;
  Object.assign(step, {
    status: 'running',
    attempt: step.attempt + 1,
    startedAt: write.now,
    finishedAt: null,
    error: null,
    output: null,
    leaseOwner: input.owner,
    leaseUntil: new Date(write.now.getTime() + Math.max(1, Math.round(input.leaseMs))),
  });
  tables.attempts.push({
    runId: step.runId,
    planVersion: step.planVersion,
    stepId: step.stepId,
    attempt: step.attempt,
    executedArgs: json(input.executedArgs),
    idempotencyKey: `${step.runId}/${step.planVersion}/${step.stepId}#${step.attempt}`,
    owner: input.owner,
    status: 'running',
    output: null,
    error: null,
    startedAt: write.now,
    finishedAt: null,
    tick: write.tick,
  });
  return step;
}

/** As writeStepTransitions: the finish, the claims (only if it stored), then their events numbered in that order. */
function transitions(
  tables: MemoryTables,
  write: { runId: string; planVersion: number; finish?: FinishStepInput; claims: readonly ClaimStepInput[] },
): { finished: boolean; claimed: StepRecord[] } {
  const now = tables.begin();
  const run = tables.runs.get(write.runId);
  if (!run) return { finished: false, claimed: [] };
  const finished = write.finish ? finish(tables, write.finish, now) : false;
  const claims = write.finish && !finished ? [] : write.claims;
  const won = claims.flatMap((input) => {
    const step = claim(tables, write.planVersion, input, now);
    return step ? [{ input, step }] : [];
  });
  const events: RunEventInput[] = [
    ...(finished ? (write.finish?.events ?? []) : []),
    ...won.flatMap(({ input, step }): RunEventInput[] =>
      input.started
        ? [
            {
              type: 'step-started',
              data: { runId: input.runId, planVersion: input.planVersion, stepId: input.stepId, ...input.started, attempt: step.attempt },
            },
          ]
        : [],
    ),
  ];
  if (events.length) tables.appendEvents(run, events, now);
  return { finished, claimed: won.map(({ step }) => untick(step)) };
}

export function memorySteps(tables: MemoryTables): StepsPort {
  return {
    async createSteps(runId, planVersion, newSteps) {
      if (newSteps.length === 0) return;
      const write = tables.begin();
      tables.runRow(runId);
      for (const step of newSteps) {
        const key = stepKey({ runId, planVersion, stepId: step.stepId });
        if (tables.steps.has(key)) continue;
        tables.steps.set(key, {
          runId,
          planVersion,
          stepId: text(step.stepId),
          kind: step.kind,
          title: text(step.title),
          tool: text(step.tool),
          risk: step.risk,
          dependsOn: json(step.dependsOn),
          plannedArgs: json(step.plannedArgs),
          status: 'pending',
          attempt: 0,
          output: null,
          error: null,
          startedAt: null,
          finishedAt: null,
          leaseOwner: null,
          leaseUntil: null,
          tick: write.tick,
        });
      }
    },
    async listSteps(runId, planVersion) {
      return [...tables.steps.values()]
        .filter((step) => step.runId === runId && (planVersion === undefined || step.planVersion === planVersion))
        .sort((a, b) => a.planVersion - b.planVersion || byTick(a, b) || a.stepId.localeCompare(b.stepId))
        .map(untick);
    },
    claimStep: async (input) => transitions(tables, { ...input, claims: [input] }).claimed[0],
    finishStep: async (input) => transitions(tables, { ...input, finish: input, claims: [] }).finished,
    finishStepAndClaim: async (finishInput, claims) =>
      transitions(tables, { runId: finishInput.runId, planVersion: finishInput.planVersion, finish: finishInput, claims }),
    async setStepStatus(input) {
      return moveStep(tables, input, tables.begin());
    },
    async listRunningSteps(runIds) {
      const wanted = new Set(runIds);
      return [...tables.steps.values()].filter((step) => wanted.has(step.runId) && step.status === 'running').map(untick);
    },
    async requeueInterrupted(attempts, why) {
      const write = tables.begin();
      const error = { message: `interrupted by a restart (${why})` };
      const requeued = attempts.filter((key) => {
        const step = tables.steps.get(stepKey(key));
        if (!step || step.status !== 'running' || step.attempt !== key.attempt) return false;
        Object.assign(step, { status: 'pending', error: json(error), finishedAt: null, leaseOwner: null, leaseUntil: null });
        const attempt = tables.attempts.find(
          (a) => a.runId === key.runId && a.planVersion === key.planVersion && a.stepId === key.stepId && a.attempt === key.attempt,
        );
        if (attempt) Object.assign(attempt, { status: 'cancelled', error: json(error), finishedAt: write.now });
        return true;
      });
      for (const key of requeued) {
        const run = tables.runs.get(key.runId);
        if (run)
          tables.appendEvents(
            run,
            [{ type: 'step-requeued', data: { runId: key.runId, planVersion: key.planVersion, stepId: key.stepId, attempt: key.attempt, why } }],
            write,
          );
      }
      return requeued.map(({ runId, planVersion, stepId, attempt }) => ({ runId, planVersion, stepId, attempt }));
    },
    async listAttempts(runId) {
      return tables.attempts
        .filter((attempt) => attempt.runId === runId)
        .sort((a, b) => byTick(a, b) || a.attempt - b.attempt)
        .map(({ tick: _tick, owner: _owner, ...attempt }) => structuredClone(attempt));
    },
  };
}
