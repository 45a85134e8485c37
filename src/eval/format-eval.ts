/** The eval report as a table a person reads in a terminal, with totals and every failed check's reason. */
import type { EvalReport } from './run-eval.ts';
import type { TaskReport } from './task-report.ts';

const COLUMNS: { title: string; width: number; value(report: TaskReport): string; right?: boolean }[] = [
  { title: 'task', width: 34, value: (r) => r.name },
  { title: 'result', width: 6, value: (r) => (r.passed ? 'pass' : 'FAIL') },
  { title: 'outcome', width: 11, value: (r) => r.outcome },
  { title: 'valid 1st', width: 9, value: (r) => (r.planValidFirstTime === null ? '-' : r.planValidFirstTime ? 'yes' : 'no') },
  { title: 'repairs', width: 7, value: (r) => `${r.repairRounds}${r.fallbackUsed ? '+fb' : ''}`, right: true },
  { title: 'steps', width: 5, value: (r) => (r.planSteps === null ? '-' : String(r.planSteps)), right: true },
  { title: 'tools ok', width: 8, value: (r) => `${r.toolCalls - r.toolFailures}/${r.toolCalls}`, right: true },
  { title: 'esc', width: 3, value: (r) => String(r.escalations), right: true },
  { title: 'replans', width: 7, value: (r) => String(r.replans), right: true },
  { title: 'tokens in/out', width: 13, value: (r) => `${r.tokens.input}/${r.tokens.output}`, right: true },
  { title: 'plan ms', width: 7, value: (r) => ms(r.planningMs), right: true },
  { title: 'cost $', width: 8, value: (r) => r.costUsd.toFixed(4), right: true },
  { title: 'total ms', width: 8, value: (r) => ms(r.totalMs), right: true },
  // Last and never cut: whether a row measures a model or replays answers a person wrote.
  { title: 'source', width: 6, value: (r) => r.source },
];

export function formatEvalReport(report: EvalReport): string {
  const lines: string[] = [];
  const row = (cells: string[]) => cells.map((cell, i) => (COLUMNS[i]!.right ? cell.padStart(COLUMNS[i]!.width) : cell.padEnd(COLUMNS[i]!.width))).join('  ').trimEnd();
  lines.push(row(COLUMNS.map((c) => c.title)));
  lines.push(row(COLUMNS.map((c) => '-'.repeat(c.width))));
  const last = COLUMNS.length - 1;
  for (const task of report.reports) lines.push(row(COLUMNS.map((c, i) => (i === last ? c.value(task) : c.value(task).slice(0, c.width)))));

  const t = report.totals;
  lines.push('');
  lines.push(`mode: ${report.mode === 'recorded' ? 'replayed answers (tokens estimated where the recording has none)' : 'live model'}`);
  lines.push(`sources: ${sourcesLine(report.reports)}`);
  lines.push(`tasks: ${t.tasks}, passed ${t.passed}, failed ${t.failed}`);
  lines.push(`steps per task: ${t.stepsPerTask.toFixed(1)}`);
  lines.push(`tool success rate: ${t.toolSuccessRate === null ? 'n/a (no tool calls)' : `${percent(t.toolSuccessRate)} (${t.toolCalls - t.toolFailures} of ${t.toolCalls} calls)`}`);
  lines.push(`escalation rate: ${percent(t.escalationRate)} (${t.escalatedTasks} of ${t.tasks} tasks; ${t.escalations} escalations)`);
  lines.push(`replans: ${t.replans}`);
  lines.push(`planner valid first time: ${t.validFirstTime.tasks} of ${t.validFirstTime.of} tasks; repair rounds: ${t.repairRounds}`);
  lines.push(`tokens: ${t.tokens.input} in, ${t.tokens.output} out; cost $${t.costUsd.toFixed(4)} (list prices; scripted answers cost nothing)`);
  lines.push(`latency: planning ${ms(t.planningMs)} ms, total ${ms(t.totalMs)} ms${t.tasks ? ` (${ms(t.totalMs / t.tasks)} ms per task)` : ''}`);

  const failures = report.reports.flatMap((task) => [
    ...task.checks.filter((check) => !check.ok).map((check) => `  ${task.name}: ${check.name}: ${check.reason}`),
    // How the run itself ended often explains the failed checks (a model error, a budget).
    ...(!task.passed && task.reason ? [`  ${task.name}: (the run ended ${task.outcome}: ${task.reason.slice(0, 300)})`] : []),
  ]);
  if (failures.length || report.problems.length) {
    lines.push('', 'failed:');
    lines.push(...report.problems.map((problem) => `  ${problem}`), ...failures);
  }
  return lines.join('\n');
}

/** How many tasks each source answered: a scripted row measures the harness, not a model. */
function sourcesLine(reports: readonly { source: string }[]): string {
  const counts = new Map<string, number>();
  for (const report of reports) counts.set(report.source, (counts.get(report.source) ?? 0) + 1);
  return [...counts].map(([source, n]) => `${source} (${n})`).join(', ') || 'none';
}

function ms(value: number): string {
  return String(Math.round(value));
}

function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

/** Did the suite pass: every task's checks, and nothing failed to load. */
export function evalPassed(report: EvalReport): boolean {
  return report.problems.length === 0 && report.reports.length > 0 && report.reports.every((task) => task.passed);
}
