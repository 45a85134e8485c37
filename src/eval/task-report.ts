/** What one golden task's run measured, and the totals over a suite. */
import type { Check } from './check-expectations.ts';

export interface TaskReport {
  name: string;
  /** Who answered: the recording's source (`scripted`, `recorded: <provider:model> <date>`) or `live: <provider:model>`. */
  source: string;
  outcome: string;
  /** The planner's first answer was a valid plan (no repair round); null when the planner was never asked. */
  planValidFirstTime: boolean | null;
  /** Repair rounds the planner needed, over the whole run. */
  repairRounds: number;
  /** The fallback planner was asked. */
  fallbackUsed: boolean;
  /** What the models charged (list prices); 0 for scripted answers. */
  costUsd: number;
  /** Steps of the first plan; null when no plan was made. */
  planSteps: number | null;
  planVersions: number;
  checks: Check[];
  passed: boolean;
  toolCalls: number;
  toolFailures: number;
  escalations: number;
  replans: number;
  tokens: { input: number; output: number };
  /** Time spent waiting for the planner model (all its calls, replans included). */
  planningMs: number;
  totalMs: number;
  /** Why the run ended, as the agent said it. */
  reason: string | null;
}

export interface EvalTotals {
  tasks: number;
  passed: number;
  failed: number;
  /** Mean steps of the first plan over tasks that made a plan with steps. */
  stepsPerTask: number;
  toolCalls: number;
  toolFailures: number;
  /** Tool calls that returned a result (not an error), over all calls; null when nothing was called. */
  toolSuccessRate: number | null;
  escalatedTasks: number;
  escalationRate: number;
  escalations: number;
  replans: number;
  tokens: { input: number; output: number };
  costUsd: number;
  /** Tasks whose planner answered with a valid plan the first time, over tasks where it was asked. */
  validFirstTime: { tasks: number; of: number };
  repairRounds: number;
  planningMs: number;
  totalMs: number;
}

export function totalsOf(reports: readonly TaskReport[]): EvalTotals {
  const sum = (pick: (report: TaskReport) => number) => reports.reduce((total, report) => total + pick(report), 0);
  const planned = reports.filter((report) => report.planSteps);
  const toolCalls = sum((r) => r.toolCalls);
  const toolFailures = sum((r) => r.toolFailures);
  const escalatedTasks = reports.filter((r) => r.escalations > 0).length;
  const passed = reports.filter((r) => r.passed).length;
  return {
    tasks: reports.length,
    passed,
    failed: reports.length - passed,
    stepsPerTask: planned.length ? planned.reduce((total, r) => total + r.planSteps!, 0) / planned.length : 0,
    toolCalls,
    toolFailures,
    toolSuccessRate: toolCalls ? (toolCalls - toolFailures) / toolCalls : null,
    escalatedTasks,
    escalationRate: reports.length ? escalatedTasks / reports.length : 0,
    escalations: sum((r) => r.escalations),
    replans: sum((r) => r.replans),
    tokens: { input: sum((r) => r.tokens.input), output: sum((r) => r.tokens.output) },
    costUsd: sum((r) => r.costUsd),
    validFirstTime: { tasks: reports.filter((r) => r.planValidFirstTime === true).length, of: reports.filter((r) => r.planValidFirstTime !== null).length },
    repairRounds: sum((r) => r.repairRounds),
    planningMs: sum((r) => r.planningMs),
    totalMs: sum((r) => r.totalMs),
  };
}
