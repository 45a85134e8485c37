import { FINAL_RUN_STATUSES, type FinishStepInput, type RunStore, type StepRecord, type StepStatus } from '../agent/ports/run-store.ts';
import { decorate } from '../agent/ports/decorate.ts';
import { runEvent, type RunEventInput } from '../agent/model/run-events.ts';
import { stepAttemptHooks } from './step-hooks.ts';
import type { Metrics } from './metrics.ts';

/**
 * Counts what /metrics shows from the facts the agent stores, so the agent core needs no metrics code:
 * every step end, run end, escalation and model call passes through the store anyway.
 */
export function instrumentRunStore(store: RunStore, metrics: Metrics): RunStore {
  const steps = stepCounting(store, metrics);
  const counted = decorate(store, { ...steps.overrides, ...runEndCounting(store, metrics, steps.runEnded), ...callCounting(store, metrics) });
  return errorCounting(counted, metrics);
}

/** Every store call that fails, by method: the database down or refusing shows on the dashboard before runs stall. */
function errorCounting(store: RunStore, metrics: Metrics): RunStore {
  const overrides: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(decorate(store, {}))) {
    if (typeof method !== 'function') continue;
    overrides[name] = (...args: unknown[]) => {
      const result: unknown = (method as (...a: unknown[]) => unknown)(...args);
      if (!(result instanceof Promise)) return result;
      return result.catch((error: unknown) => {
        metrics.storeErrors.inc({ operation: name });
        throw error;
      });
    };
  }
  return decorate(store, overrides as Partial<RunStore>);
}

type Overrides = Partial<RunStore>;

/** Steps finished, by tool and status, and how long each ran. */
function stepCounting(store: RunStore, metrics: Metrics): { overrides: Overrides; runEnded(runId: string): void } {
  // claimStep returns the tool and start time that finishStep no longer carries.
  const running = new Map<string, { tool: string; startedAt: number }>();
  const key = (runId: string, planVersion: number, stepId: string) => `${runId}/${planVersion}/${stepId}`;
  const countStep = (tool: string, status: StepStatus) => metrics.stepsFinished.inc({ tool, status });
  // Each step's tool, from when its plan's steps were created, so a skip or cancel needs no read; per run, so
  // a finished run's entries go with it.
  const toolsByRun = new Map<string, Map<string, string>>();
  const toolOf = async (runId: string, planVersion: number, stepId: string) =>
    toolsByRun.get(runId)?.get(`${planVersion}/${stepId}`) ??
    // Created by another replica, or asked after the run ended: ask the store.
    (await store.listSteps(runId, planVersion)).find((s) => s.stepId === stepId)?.tool;
  const started = (step: StepRecord) => running.set(key(step.runId, step.planVersion, step.stepId), { tool: step.tool, startedAt: Date.now() });
  const ended = (input: FinishStepInput) => {
    const k = key(input.runId, input.planVersion, input.stepId);
    const start = running.get(k);
    if (!start || input.status === 'waiting') return;
    running.delete(k);
    countStep(start.tool, input.status);
    metrics.stepDuration.observe({ tool: start.tool }, (Date.now() - start.startedAt) / 1000);
  };

  const overrides: Overrides = {
    async createSteps(runId, planVersion, steps) {
      await store.createSteps(runId, planVersion, steps);
      const tools = toolsByRun.get(runId) ?? new Map<string, string>();
      for (const step of steps) tools.set(`${planVersion}/${step.stepId}`, step.tool);
      toolsByRun.set(runId, tools);
    },
    ...stepAttemptHooks(store, { started, ended }),
    async setStepStatus(input) {
      const changed = await store.setStepStatus(input);
      if (changed && (input.to === 'skipped' || input.to === 'cancelled' || input.to === 'succeeded' || input.to === 'failed')) {
        const tool = await toolOf(input.runId, input.planVersion, input.stepId);
        if (tool) countStep(tool, input.to);
      }
      return changed;
    },
  };
  // Steps still running when their run ends (a cancel) keep their `running` entry until they finish.
  return { overrides, runEnded: (runId) => void toolsByRun.delete(runId) };
}

/** Runs finished, by outcome, whichever store call ended them. */
function runEndCounting(store: RunStore, metrics: Metrics, runEnded: (runId: string) => void): Overrides {
  // Every outcome is on /metrics from the start, at 0: a scrape before the first run ends reads zeros, not nothing.
  for (const outcome of FINAL_RUN_STATUSES) metrics.runsFinished.inc({ outcome }, 0);
  const ended = (runId: string, outcome: string) => {
    metrics.runsFinished.inc({ outcome });
    runEnded(runId);
  };
  return {
    async updateRun(runId, patch) {
      const run = await store.updateRun(runId, patch);
      if (patch.status && FINAL_RUN_STATUSES.includes(patch.status)) ended(runId, patch.status);
      return run;
    },
    async finishRun(input) {
      const run = await store.finishRun(input);
      if (run) ended(input.runId, input.status);
      return run;
    },
    async transitionRun(runId, from, to) {
      const moved = await store.transitionRun(runId, from, to);
      if (moved && FINAL_RUN_STATUSES.includes(to)) ended(runId, to);
      return moved;
    },
    async decide(input) {
      const decided = await store.decide(input);
      if (decided.ok && input.to && FINAL_RUN_STATUSES.includes(input.to)) ended(input.runId, input.to);
      return decided;
    },
  };
}

/** agent_task's inner calls, escalations opened, and model tokens and cost. */
function callCounting(store: RunStore, metrics: Metrics): Overrides {
  const countAgentCall = (event: RunEventInput) => {
    if (event.type !== 'agent-call') return;
    // A refused call's name is whatever the model wrote: keep it out of the labels.
    if (event.data.refused) metrics.agentCalls.inc({ tool: '-', status: 'refused' });
    else metrics.agentCalls.inc({ tool: String(event.data.tool), status: event.data.ok ? 'succeeded' : 'failed' });
  };
  return {
    async appendEvent(runId, ...args) {
      const event = await store.appendEvent(runId, ...args);
      countAgentCall(runEvent(...args));
      return event;
    },
    async appendEvents(runId, events) {
      const stored = await store.appendEvents(runId, events);
      events.forEach(countAgentCall);
      return stored;
    },
    async openEscalation(input, owed) {
      const escalation = await store.openEscalation(input, owed);
      metrics.escalations.inc({ kind: input.kind });
      return escalation;
    },
    async recordUsage(usage) {
      await store.recordUsage(usage);
      const model = `${usage.provider}:${usage.model}`;
      metrics.llmTokens.inc({ role: usage.role, model, direction: 'input' }, usage.inputTokens);
      metrics.llmTokens.inc({ role: usage.role, model, direction: 'output' }, usage.outputTokens);
      metrics.llmCost.inc({ role: usage.role, model }, usage.costUsd);
    },
  };
}
