/** Lines saying what changed between two plan versions, for the person looking at the new one. */
import type { Plan, PlanStep } from './plan.ts';

export function diffPlans(before: Plan, after: Plan): string[] {
  const lines: string[] = [];
  if (before.goal !== after.goal) lines.push(`goal: "${before.goal}" → "${after.goal}"`);
  const old = new Map(before.steps.map((step) => [step.id, step]));
  const next = new Map(after.steps.map((step) => [step.id, step]));
  for (const step of after.steps) {
    const previous = old.get(step.id);
    if (!previous) lines.push(`added ${step.id}: ${step.title} (${step.tool})`);
    else lines.push(...changes(previous, step));
  }
  for (const step of before.steps) if (!next.has(step.id)) lines.push(`removed ${step.id}: ${step.title}`);
  const rollbackBefore = JSON.stringify(before.rollback);
  if (rollbackBefore !== JSON.stringify(after.rollback)) lines.push(`rollback steps: ${before.rollback.length} → ${after.rollback.length}`);
  if (before.confidence !== after.confidence) lines.push(`confidence: ${before.confidence} → ${after.confidence}`);
  return lines;
}

function changes(before: PlanStep, after: PlanStep): string[] {
  const lines: string[] = [];
  if (before.title !== after.title) lines.push(`${after.id} title: "${before.title}" → "${after.title}"`);
  if (before.tool !== after.tool) lines.push(`${after.id} tool: ${before.tool} → ${after.tool}`);
  const keys = new Set([...Object.keys(before.args), ...Object.keys(after.args)]);
  for (const key of keys) {
    const a = JSON.stringify(before.args[key]);
    const b = JSON.stringify(after.args[key]);
    if (a !== b) lines.push(`${after.id} ${key}: ${a ?? '(none)'} → ${b ?? '(none)'}`);
  }
  if (before.dependsOn.join(',') !== after.dependsOn.join(',')) lines.push(`${after.id} waits for: [${before.dependsOn.join(', ')}] → [${after.dependsOn.join(', ')}]`);
  if ((before.expect ?? '') !== (after.expect ?? '')) lines.push(`${after.id} expect: "${before.expect ?? ''}" → "${after.expect ?? ''}"`);
  return lines;
}
