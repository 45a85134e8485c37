/** Runs one golden task through the real agent on the shared store and measures what happened. */
import { randomUUID } from 'node:crypto';
import { createAgent } from '../agent/agent.ts';
import { DEFAULT_HOUSEKEEPING } from '../agent/waits/wait.ts';
import type { AgentSettings } from '../agent/context.ts';
import type { LogPort } from '../agent/ports/logger.ts';
import type { LlmClient } from '../agent/ports/llm.ts';
import type { EventsPort } from '../agent/ports/events.ts';
import type { RunRecord, RunStore } from '../agent/ports/run-store.ts';
import type { StepsPort } from '../agent/ports/steps.ts';
import { eventsOfType } from '../agent/model/run-events.ts';
import { InMemorySurface } from '../agent/testing/in-memory-surface.ts';
import { checkExpectations, type Check, type RunFacts } from './check-expectations.ts';
import { createEvalTools } from './eval-tools.ts';
import type { GoldenTask, RunOutcome } from './golden-schema.ts';
import { meterLlm, type MeteredLlm } from './metered-llm.ts';
import { EVAL_REQUESTER, playPeople } from './play-people.ts';
import type { TaskReport } from './task-report.ts';
import { TextSchema } from '../agent/text/text.ts';
import { settingsGate } from '../policy/policy-in-force.ts';

/** The eval's built-in policy names no groups (anyone approves). */
const NO_GROUPS = { groupsOf: async () => [] };
import { terminalWords } from '../config/setting-variables.ts';

export interface TaskRunDeps {
  store: RunStore;
  llm: LlmClient;
  settings: AgentSettings;
  /** Who answers, for the report. */
  source: string;
  /** Answers the LLM was given but never asked for (a replayed recording), checked after the run. */
  unusedAnswers?: () => { role: string; count: number }[];
}

export interface TaskRun {
  report: TaskReport;
  llm: MeteredLlm;
}

export async function runTask(deps: TaskRunDeps, task: GoldenTask): Promise<TaskRun> {
  const llm = meterLlm(deps.llm);
  const tools = createEvalTools(task, llm);
  const errors: string[] = [];
  const logger: LogPort = { info: () => undefined, warn: () => undefined, error: (obj, msg) => errors.push(`${msg ?? 'error'}: ${describeError(obj)}`) };
  const agent = createAgent({
    store: deps.store,
    llm,
    tools: tools.tools,
    surface: new InMemorySurface(),
    // Anyone approves: the eval's people are scripted.
    policy: settingsGate({ approvers: [], autoRunReadOnly: deps.settings.autoRunReadOnly, repos: deps.settings.repositories }, NO_GROUPS),
    settings: deps.settings,
    logger,
    owner: 'tandem-eval',
  });
  const conversation = { channel: 'CEVAL', threadTs: `eval-${task.name}-${randomUUID()}` };
  const started = performance.now();
  const run = await agent.startRun({ task: task.task, requester: EVAL_REQUESTER, conversation, origin: 'cli' });
  const waitTtlS = deps.settings.housekeeping?.waitTtlS ?? DEFAULT_HOUSEKEEPING.waitTtlS;
  const played = await playPeople({ agent, store: deps.store, waitTtlS }, task, run, conversation);
  await agent.idle();
  const totalMs = performance.now() - started;

  const plans = (await deps.store.listPlanVersions(run.id)).map((version) => version.plan);
  const escalations = await deps.store.listEscalations(run.id);
  const outcome = await outcomeOf(deps.store, played.run);
  const riskOf = (name: string) => tools.tools.find((tool) => tool.name === name)?.risk;
  const checks: Check[] = [
    ...harnessChecks({ unknownTools: tools.unknown, problems: played.problems, errors, unused: deps.unusedAnswers?.() ?? [] }),
    ...checkExpectations(task.expect, { plans, outcome, escalations: escalations.length, replans: played.run.replans, riskOf, called: tools.calls.map((call) => call.tool), ...(await agentFacts(deps.store, run.id)) }),
  ];
  const meters = [...llm.meters.values()];
  const planner = llm.plannerCalls;
  const report: TaskReport = {
    name: task.name,
    source: deps.source,
    outcome,
    planValidFirstTime: planner.length ? planner[1]?.repair !== true : null,
    repairRounds: planner.filter((call) => call.repair).length,
    fallbackUsed: (llm.meters.get('planner-fallback')?.calls ?? 0) > 0,
    costUsd: meters.reduce((t, m) => t + m.costUsd, 0),
    planSteps: plans[0]?.steps.length ?? null,
    planVersions: plans.length,
    checks,
    passed: checks.every((check) => check.ok),
    toolCalls: tools.calls.length,
    toolFailures: tools.calls.filter((call) => call.result === 'error').length,
    escalations: escalations.length,
    replans: played.run.replans,
    tokens: { input: meters.reduce((t, m) => t + m.inputTokens, 0), output: meters.reduce((t, m) => t + m.outputTokens, 0) },
    planningMs: llm.meters.get('planner')?.ms ?? 0,
    totalMs,
    reason: endReason(played.run.summary),
  };
  return { report, llm };
}

function harnessChecks(input: { unknownTools: string[]; problems: string[]; errors: string[]; unused: { role: string; count: number }[] }): Check[] {
  const checks: Check[] = [];
  if (input.unknownTools.length) checks.push({ name: 'golden tools exist', ok: false, reason: `not built-in tools: ${input.unknownTools.join(', ')}` });
  for (const problem of input.problems) checks.push({ name: 'run finishes', ok: false, reason: problem });
  if (input.errors.length) checks.push({ name: 'no agent errors', ok: false, reason: input.errors.join('; ').slice(0, 500) });
  if (input.unused.length) {
    checks.push({ name: 'recording used up', ok: false, reason: `the run took another path: ${input.unused.map((u) => `${u.count} ${u.role} answer(s)`).join(', ')} never asked for` });
  }
  return checks;
}

/** The run's end as a golden task names it; an aborted run that undid something is `rolled-back`. */
async function outcomeOf(store: Pick<StepsPort, 'listSteps'>, run: RunRecord): Promise<RunOutcome | string> {
  if (run.status === 'awaiting-answer') return 'asked';
  if (run.status === 'aborted') {
    const undone = (await store.listSteps(run.id)).some((step) => step.kind === 'rollback' && step.status === 'succeeded');
    return undone ? 'rolled-back' : 'aborted';
  }
  return run.status;
}

function describeError(obj: object): string {
  const err = (obj as { err?: unknown }).err;
  return err instanceof Error ? err.message : JSON.stringify(obj).slice(0, 200);
}

/** What the run's agent_task steps did (their agent-call events and step records), and which plan versions a fallback wrote. */
async function agentFacts(store: Pick<EventsPort, 'listEvents'> & Pick<StepsPort, 'listSteps'>, runId: string): Promise<Pick<RunFacts, 'agent' | 'fallbackAuthors'>> {
  const events = await store.listEvents(runId);
  const calls = eventsOfType(events, 'agent-call');
  const last = (await store.listSteps(runId)).filter((step) => step.tool === 'agent_task').at(-1);
  return {
    agent: {
      calls: calls.filter((event) => !event.data.refused).length,
      refused: calls.filter((event) => event.data.refused).length,
      status: last?.status ?? null,
      errorCode: last?.error?.code ?? null,
    },
    fallbackAuthors: eventsOfType(events, 'planner-fallback').map((event) => event.data.author),
  };
}

/** How the run ended, in words for the report (the summary stores people as data). */
function endReason(summary: Record<string, unknown> | null): string | null {
  const parsed = TextSchema.safeParse(summary?.reason);
  return parsed.success ? terminalWords(parsed.data) : null;
}
