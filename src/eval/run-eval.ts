/**
 * `tandem eval`: every golden task through the real agent (in-memory store, fake tools built from the
 * real catalogue, people played by a fixed policy), with either a live model or recorded answers.
 */
import type { AgentSettings } from '../agent/context.ts';
import type { LlmClient } from '../agent/ports/llm.ts';
import type { RunStore } from '../agent/ports/run-store.ts';
import { createRunStore, openDatabase } from '../store/index.ts';
import type { GoldenTask } from './golden-schema.ts';
import { loadGoldenTasks } from './load-golden.ts';
import { readRecording, recordedSource, writeRecording } from './recording-file.ts';
import { createReplayLlm } from './replay-llm.ts';
import { runTask } from './run-task.ts';
import { totalsOf, type EvalTotals, type TaskReport } from './task-report.ts';
import { loadConfig } from '../config/config.ts';

/** The contract's defaults: recorded answers were written for them, whatever the local environment says. */
const DOCUMENTED_DEFAULTS = loadConfig({});

export const EVAL_SETTINGS: AgentSettings = {
  budgets: DOCUMENTED_DEFAULTS.budgets,
  confidenceThreshold: DOCUMENTED_DEFAULTS.confidenceThreshold,
  autoRunReadOnly: false,
  secrets: [],
  // One step at a time: a run takes the same path every time, so recorded answers line up.
  concurrency: 1,
  retry: { retries: 3, baseDelayMs: 1 },
};

/** `source` of a live model is its `provider:model`. */
export type EvalModel = { kind: 'recorded' } | { kind: 'live'; llm: LlmClient; source: string; record: boolean };

export interface EvalOptions {
  goldenDir: string;
  recordedDir: string;
  model: EvalModel;
  settings?: AgentSettings;
  /** Only these task names (default: all). */
  only?: readonly string[];
  /** Tasks to run instead of reading goldenDir (tests). */
  tasks?: readonly GoldenTask[];
  /** A migrated store to use (tests); otherwise one in-memory PGlite for the whole invocation. */
  store?: RunStore;
  onTask?: (report: TaskReport) => void;
  /** The date a `--record` run stamps on its recordings (tests fix it). */
  now?: () => Date;
}

export interface EvalReport {
  mode: 'recorded' | 'live';
  reports: TaskReport[];
  totals: EvalTotals;
  /** Golden files that did not load, unknown --only names: each fails the suite. */
  problems: string[];
}

export async function runEval(options: EvalOptions): Promise<EvalReport> {
  const loaded = options.tasks ? { tasks: [...options.tasks], problems: [] } : await loadGoldenTasks(options.goldenDir);
  const problems = [...loaded.problems];
  const unknown = (options.only ?? []).filter((name) => !loaded.tasks.some((task) => task.name === name));
  if (unknown.length) problems.push(`no golden task named ${unknown.join(', ')}`);
  const tasks = options.only?.length ? loaded.tasks.filter((task) => options.only!.includes(task.name)) : loaded.tasks;

  const database = options.store ? undefined : await openDatabase({ memory: true });
  try {
    if (database) await database.migrate();
    const store = options.store ?? createRunStore(database!.db);
    const reports: TaskReport[] = [];
    for (const task of tasks) {
      const report = await evaluate(options, store, task);
      reports.push(report);
      options.onTask?.(report);
    }
    return { mode: options.model.kind, reports, totals: totalsOf(reports), problems };
  } finally {
    await database?.close();
  }
}

async function evaluate(options: EvalOptions, store: RunStore, task: GoldenTask): Promise<TaskReport> {
  const settings = options.settings ?? EVAL_SETTINGS;
  const { model } = options;
  if (model.kind === 'live') {
    const { report, llm } = await runTask({ store, llm: model.llm, settings, source: `live: ${model.source}` }, task);
    if (model.record) await writeRecording(options.recordedDir, { task: task.name, source: recordedSource(model.source, (options.now ?? (() => new Date()))()), answers: llm.answers });
    return report;
  }
  const recording = await readRecording(options.recordedDir, task.name);
  if (!recording.ok) return notRun(task, recording.error);
  const replay = createReplayLlm(recording.value);
  return (await runTask({ store, llm: replay, settings, source: recording.value.source, unusedAnswers: () => replay.unused() }, task)).report;
}

function notRun(task: GoldenTask, why: string): TaskReport {
  return {
    name: task.name,
    source: 'none',
    outcome: 'not run',
    planValidFirstTime: null,
    repairRounds: 0,
    fallbackUsed: false,
    costUsd: 0,
    planSteps: null,
    planVersions: 0,
    checks: [{ name: 'recording', ok: false, reason: why }],
    passed: false,
    toolCalls: 0,
    toolFailures: 0,
    escalations: 0,
    replans: 0,
    tokens: { input: 0, output: 0 },
    planningMs: 0,
    totalMs: 0,
    reason: null,
  };
}
