/**
 * Lines saying what changed between two plan versions, for the person looking at the new one. A
 * line that changes which object a write acts on (a target arg, the tool, a new write) is marked,
 * so the view can shorten everything else and never drop it.
 */
import type { Plan } from './plan.ts';

export interface DiffLine {
  text: string;
  /** Changes the object a write or destructive step (forward or rollback) acts on. */
  target: boolean;
}

interface DiffStep {
  id: string;
  title: string;
  tool: string;
  args: Record<string, unknown>;
  dependsOn?: string[];
  expect?: string | undefined;
  undoes?: string | undefined;
}

/** The target args of a step that must be shown; empty for a read step. */
type TargetsOf = (step: { tool: string; args: Record<string, unknown> }) => readonly string[];

export function diffPlans(before: Plan, after: Plan, targetsOf: TargetsOf): DiffLine[] {
  const lines: DiffLine[] = [];
  if (before.goal !== after.goal) lines.push({ text: `goal: "${before.goal}" → "${after.goal}"`, target: false });
  lines.push(...diffSteps(before.steps, after.steps, '', targetsOf));
  lines.push(...diffSteps(before.rollback, after.rollback, 'rollback ', targetsOf));
  if (before.confidence !== after.confidence) lines.push({ text: `confidence: ${before.confidence} → ${after.confidence}`, target: false });
  return lines;
}

function diffSteps(before: readonly DiffStep[], after: readonly DiffStep[], prefix: string, targetsOf: TargetsOf): DiffLine[] {
  const lines: DiffLine[] = [];
  const old = new Map(before.map((step) => [step.id, step]));
  const next = new Set(after.map((step) => step.id));
  for (const step of after) {
    const previous = old.get(step.id);
    if (previous) {
      lines.push(...changes(previous, step, prefix, targetsOf));
      continue;
    }
    const targets = targetsOf(step).map((name) => `${name}=${JSON.stringify(step.args[name])}`);
    lines.push({
      text: `added ${prefix}${step.id}: ${step.title} (${step.tool}${targets.length ? ` ${targets.join(', ')}` : ''})`,
      target: targets.length > 0,
    });
  }
  for (const step of before) if (!next.has(step.id)) lines.push({ text: `removed ${prefix}${step.id}: ${step.title}`, target: false });
  return lines;
}

function changes(before: DiffStep, after: DiffStep, prefix: string, targetsOf: TargetsOf): DiffLine[] {
  const lines: DiffLine[] = [];
  const id = `${prefix}${after.id}`;
  const targets = new Set([...targetsOf(before), ...targetsOf(after)]);
  if (before.title !== after.title) lines.push({ text: `${id} title: "${before.title}" → "${after.title}"`, target: false });
  if (before.tool !== after.tool) lines.push({ text: `${id} tool: ${before.tool} → ${after.tool}`, target: targets.size > 0 });
  const keys = new Set([...Object.keys(before.args), ...Object.keys(after.args)]);
  for (const key of keys) {
    const a = JSON.stringify(before.args[key]);
    const b = JSON.stringify(after.args[key]);
    if (a !== b) lines.push({ text: `${id} ${key}: ${a ?? '(none)'} → ${b ?? '(none)'}`, target: targets.has(key) });
  }
  const [waitedBefore, waitedAfter] = [(before.dependsOn ?? []).join(', '), (after.dependsOn ?? []).join(', ')];
  if (waitedBefore !== waitedAfter) lines.push({ text: `${id} waits for: [${waitedBefore}] → [${waitedAfter}]`, target: false });
  if ((before.expect ?? '') !== (after.expect ?? '')) lines.push({ text: `${id} expect: "${before.expect ?? ''}" → "${after.expect ?? ''}"`, target: false });
  if ((before.undoes ?? '') !== (after.undoes ?? ''))
    lines.push({ text: `${id} undoes: ${before.undoes ?? '(none)'} → ${after.undoes ?? '(none)'}`, target: false });
  return lines;
}
