import type { Result } from '../agent/model/errors.ts';
import type { Plan } from '../agent/model/plan/plan.ts';
import { literalWordProblem, PARAM_NAME, visitStrings } from './placeholders.ts';
import { RunbookPlanSchema } from './runbook.ts';

export interface RunbookDraft {
  name: string;
  pattern: string;
  plan: Plan;
  params: string[];
}

/**
 * "Save as runbook": the person marks values of a finished run as parameters ({ tag: "v2.4.0" }); each value
 * becomes `{tag}` in the task (the pattern) and in every string of the plan. A value is replaced only where it
 * stands alone ("prod" does not touch "production").
 */
export function draftRunbook(input: { task: string; plan: Plan; params: Readonly<Record<string, string>>; name?: string }): Result<RunbookDraft> {
  const entries = Object.entries(input.params).map(([name, value]) => [name, value.trim()] as const);
  for (const [name, value] of entries) {
    if (!PARAM_NAME.test(name)) return { ok: false, error: `"${name}" cannot be a parameter name: use letters, digits and _` };
    if (!value) return { ok: false, error: `the value of {${name}} is empty` };
  }
  const values = new Set(entries.map(([, value]) => value));
  if (values.size !== entries.length) return { ok: false, error: 'two parameters were given the same value' };
  const replace = replacer(entries);
  const pattern = replace(input.task.trim());
  const missing = entries.filter(([name]) => !pattern.includes(`{${name}}`));
  if (missing.length > 0) {
    return { ok: false, error: `the task "${input.task.trim()}" does not contain ${missing.map(([name, value]) => `"${value}" (for {${name}})`).join(', ')}, so the runbook could not recognise it` };
  }
  const literal = literalWordProblem(pattern);
  if (literal) return { ok: false, error: literal };
  const plan = RunbookPlanSchema.safeParse(visitStrings(input.plan, replace));
  if (!plan.success) return { ok: false, error: `the plan no longer fits the plan schema once parameterised: ${plan.error.issues[0]?.message}` };
  const name = input.name?.trim() || nameFromPattern(pattern);
  if (!/^[a-z0-9][a-z0-9._-]{0,63}$/i.test(name)) return { ok: false, error: `"${name}" cannot be a runbook name: use letters, digits, ".", "_" or "-" (max 64)` };
  return { ok: true, value: { name, pattern, plan: plan.data, params: entries.map(([name]) => name) } };
}

function replacer(entries: readonly (readonly [string, string])[]): (text: string) => string {
  if (entries.length === 0) return (text) => text;
  const byValue = new Map(entries.map(([name, value]) => [value, name]));
  // Longest first, so "acme/api-v2" wins over "acme/api" where both could match.
  const alternatives = [...byValue.keys()].sort((a, b) => b.length - a.length).map(escapeRegex);
  const regex = new RegExp(`(?<![A-Za-z0-9])(?:${alternatives.join('|')})(?![A-Za-z0-9])`, 'g');
  return (text) => text.replace(regex, (value) => `{${byValue.get(value)}}`);
}

/** "cut release {tag} of {repo}" → "cut-release-of". */
function nameFromPattern(pattern: string): string {
  const words = pattern
    .replace(/\{[^}]*\}/g, ' ')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return (words.join('-') || 'runbook').slice(0, 64).replace(/-+$/, '');
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
