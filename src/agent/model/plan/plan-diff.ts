/**
 * Lines saying what changed between two plan versions, for the person looking at the new one. A
 * line that changes which object a write acts on (a target arg, the tool, a new write) is marked,
 * so the view can shorten everything else and never drop it. Steps are named as the reader sees them
 * on the new plan ("step 3", "rollback step 1") or by their titles, never by their ids.
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

/** How a step of each version is named: its number on the new plan, or its title. */
interface Naming {
  /** "step" or "rollback step". */
  label: string;
  /** "step 3" or "rollback step 1". */
  numbered: (step: DiffStep) => string;
  /** “Deploy web”, the title of a forward step of that version, by id. */
  before: (id: string) => string;
  after: (id: string) => string;
}

export function diffPlans(before: Plan, after: Plan, targetsOf: TargetsOf): DiffLine[] {
  const lines: DiffLine[] = [];
  const titles = (plan: Plan) => {
    const byId = new Map(plan.steps.map((step) => [step.id, step.title]));
    return (id: string) => quoted(byId.get(id) ?? 'an earlier step');
  };
  const naming = (label: string, list: readonly DiffStep[]): Naming => ({
    label,
    numbered: (step) => `${label} ${list.indexOf(step) + 1}`,
    before: titles(before),
    after: titles(after),
  });
  if (before.goal !== after.goal) lines.push({ text: `goal: “${before.goal}” → “${after.goal}”`, target: false });
  lines.push(...diffSteps(before.steps, after.steps, naming('step', after.steps), targetsOf));
  lines.push(...diffSteps(before.rollback, after.rollback, naming('rollback step', after.rollback), targetsOf));
  if (before.confidence !== after.confidence) lines.push({ text: `confidence: ${before.confidence} → ${after.confidence}`, target: false });
  return lines;
}

function diffSteps(before: readonly DiffStep[], after: readonly DiffStep[], naming: Naming, targetsOf: TargetsOf): DiffLine[] {
  const lines: DiffLine[] = [];
  const old = new Map(before.map((step) => [step.id, step]));
  const next = new Set(after.map((step) => step.id));
  for (const step of after) {
    const previous = old.get(step.id);
    if (previous) {
      lines.push(...changes(previous, step, naming, targetsOf));
      continue;
    }
    const targets = targetsOf(step).map((name) => `${name}=${JSON.stringify(step.args[name])}`);
    lines.push({
      text: `added ${naming.numbered(step)}: ${step.title} (${step.tool}${targets.length ? ` ${targets.join(', ')}` : ''})`,
      target: targets.length > 0,
    });
  }
  for (const step of before) if (!next.has(step.id)) lines.push({ text: `removed ${naming.label} ${quoted(step.title)}`, target: false });
  return lines;
}

function changes(before: DiffStep, after: DiffStep, naming: Naming, targetsOf: TargetsOf): DiffLine[] {
  const lines: DiffLine[] = [];
  const name = naming.numbered(after);
  const targets = new Set([...targetsOf(before), ...targetsOf(after)]);
  if (before.title !== after.title) lines.push({ text: `${name} title: “${before.title}” → “${after.title}”`, target: false });
  if (before.tool !== after.tool) lines.push({ text: `${name} tool: ${before.tool} → ${after.tool}`, target: targets.size > 0 });
  const keys = new Set([...Object.keys(before.args), ...Object.keys(after.args)]);
  for (const key of keys) {
    const a = JSON.stringify(before.args[key]);
    const b = JSON.stringify(after.args[key]);
    if (a !== b) lines.push({ text: `${name} ${key}: ${a ?? '(none)'} → ${b ?? '(none)'}`, target: targets.has(key) });
  }
  const waited = (ids: readonly string[] | undefined, title: (id: string) => string) => (ids?.length ? ids.map(title).join(' and ') : 'nothing');
  const [waitedBefore, waitedAfter] = [waited(before.dependsOn, naming.before), waited(after.dependsOn, naming.after)];
  if (waitedBefore !== waitedAfter) lines.push({ text: `${name} waits for: ${waitedBefore} → ${waitedAfter}`, target: false });
  if ((before.expect ?? '') !== (after.expect ?? '')) lines.push({ text: `${name} expect: “${before.expect ?? ''}” → “${after.expect ?? ''}”`, target: false });
  if ((before.undoes ?? '') !== (after.undoes ?? '')) {
    const undone = (id: string | undefined, title: (id: string) => string) => (id ? title(id) : '(none)');
    lines.push({ text: `${name} undoes: ${undone(before.undoes, naming.before)} → ${undone(after.undoes, naming.after)}`, target: false });
  }
  return lines;
}

function quoted(title: string): string {
  return `“${title}”`;
}
