import type { PlanTaskResult } from '../agent/planning/plan-task.ts';
import { terminalSafe } from './terminal-safe.ts';

export function formatPlan(result: PlanTaskResult): string {
  const { plan, risks } = result;
  const lines = [
    `${plan.goal}`,
    `author: ${result.authorKind === 'runbook' ? `runbook ${result.author}` : `planner (${result.author})`}  confidence ${plan.confidence}`,
  ];
  plan.steps.forEach((step, i) => {
    const after = step.dependsOn.length ? `  after ${step.dependsOn.join(', ')}` : '';
    lines.push(`${String(i + 1).padStart(2)}. [${step.id}] ${step.title}  — ${step.tool} (${risks[step.id] ?? '?'})${after}`);
    lines.push(`      ${JSON.stringify(step.args)}`);
    if (step.expect) lines.push(`      expect: ${step.expect}`);
  });
  if (plan.rollback.length) {
    lines.push('rollback:');
    for (const step of plan.rollback)
      lines.push(`  [${step.id}] ${step.title} — ${step.tool}${step.undoes ? ` (undoes ${step.undoes})` : ''}  ${JSON.stringify(step.args)}`);
  }
  for (const question of plan.questions ?? []) lines.push(`question: ${question}`);
  lines.push('', JSON.stringify(plan, null, 2));
  return terminalSafe(lines.join('\n'));
}
