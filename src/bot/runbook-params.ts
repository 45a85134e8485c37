import type { Result } from '../agent/model/errors.ts';
import type { Plan } from '../agent/model/plan/plan.ts';
import { PARAM_NAME } from '../runbooks/placeholders.ts';

/** Arg names whose values are usually what changes from one run of a procedure to the next. */
const LIKELY_PARAMS = [
  'repo',
  'target',
  'tag',
  'ref',
  'branch',
  'version',
  'environment',
  'env',
  'service',
  'workflow',
  'base',
  'head',
  'channel',
  'url',
  'label',
  'cluster',
  'namespace',
];

/** Every string in the steps' args (references such as `{{steps.s1.output.url}}` left out), by arg name. */
export function argStrings(plan: Plan): { key: string; value: string }[] {
  const found = new Map<string, string>();
  const visit = (key: string, value: unknown): void => {
    if (typeof value === 'string') {
      const trimmed = value.trim();
      if (trimmed && trimmed.length <= 200 && !trimmed.includes('{{') && !found.has(trimmed)) found.set(trimmed, key);
    } else if (Array.isArray(value)) value.forEach((item) => visit(key, item));
    else if (value && typeof value === 'object') for (const [inner, item] of Object.entries(value)) visit(inner, item);
  };
  for (const step of plan.steps) for (const [key, value] of Object.entries(step.args)) visit(key, value);
  return [...found].map(([value, key]) => ({ key, value }));
}

/** Suggested `name=value` lines: likely-parameter args whose value also appears in the task as a word. */
export function suggestParams(task: string, plan: Plan): string[] {
  const used = new Set<string>();
  const lines: string[] = [];
  for (const { key, value } of argStrings(plan)) {
    const name = key.replace(/[^A-Za-z0-9_]/g, '_');
    if (!LIKELY_PARAMS.includes(key.toLowerCase()) || used.has(name) || !PARAM_NAME.test(name)) continue;
    if (!new RegExp(`(?<![A-Za-z0-9])${escapeRegex(value)}(?![A-Za-z0-9])`).test(task)) continue;
    used.add(name);
    lines.push(`${name}=${value}`);
  }
  return lines;
}

/** The modal's `name=value` lines as params; blank lines and `#` comments are skipped. */
export function parseParamLines(text: string): Result<Record<string, string>> {
  const params: Record<string, string> = {};
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) return { ok: false, error: `Line ${index + 1} ("${line.slice(0, 60)}") is not name=value.` };
    const name = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (!PARAM_NAME.test(name)) return { ok: false, error: `"${name}" cannot be a parameter name: use letters, digits and _.` };
    if (Object.hasOwn(params, name)) return { ok: false, error: `{${name}} is given twice.` };
    params[name] = value;
  }
  return { ok: true, value: params };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
