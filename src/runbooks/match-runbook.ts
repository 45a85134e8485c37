import { PlanSchema, type Plan } from '../agent/model/plan/plan.ts';
import { fillPlaceholders } from './placeholders.ts';
import type { Runbook } from './runbook.ts';

export interface RunbookMatch {
  runbook: Runbook;
  params: Record<string, string>;
  /** The runbook's plan with every placeholder filled. */
  plan: Plan;
}

const PLACEHOLDER_OR_SPACE = /(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})|\s+/g;
// A quoted value may hold spaces; a Slack-formatted link (<http://…|label>) is one value; else a run of non-spaces.
const VALUE = `"[^"]*"|'[^']*'|<[^>]+>|\\S+`;

/**
 * "deploy {ref} of {repo} to {env}" → /^deploy\s+(?<ref>…)\s+of\s+(?<repo>…)\s+to\s+(?<env>…)$/i. A name used
 * twice must take the same value both times.
 */
export function patternToRegex(pattern: string): RegExp {
  const seen = new Set<string>();
  let source = '';
  let last = 0;
  const trimmed = pattern.trim();
  for (const match of trimmed.matchAll(PLACEHOLDER_OR_SPACE)) {
    source += escapeRegex(trimmed.slice(last, match.index));
    const name = match[1];
    if (name === undefined) source += '\\s+';
    else if (seen.has(name)) source += `\\k<${name}>`;
    else {
      seen.add(name);
      source += `(?<${name}>${VALUE})`;
    }
    last = match.index + match[0].length;
  }
  source += escapeRegex(trimmed.slice(last));
  return new RegExp(`^${source}$`, 'i');
}

/** How specific a pattern is: the literal text it demands. The most specific match wins. */
function literalLength(pattern: string): number {
  return pattern.replace(PLACEHOLDER_OR_SPACE, '').length;
}

export function matchRunbook(task: string, runbooks: readonly Runbook[]): RunbookMatch | undefined {
  const text = task.trim();
  // A sentence's final full stop is not part of the last value; the task as typed is the fallback.
  const candidates = [...new Set([text.replace(/[.!?]+$/, ''), text])];
  const ranked = [...runbooks].sort((a, b) => literalLength(b.pattern) - literalLength(a.pattern));
  for (const runbook of ranked) {
    const regex = patternToRegex(runbook.pattern);
    for (const candidate of candidates) {
      const found = regex.exec(candidate);
      if (!found) continue;
      // A pattern with no placeholders ("let it settle") has no groups at all.
      const groups = found.groups ?? {};
      const params = Object.fromEntries(Object.entries(groups).map(([name, value]) => [name, cleanValue(value ?? '')]));
      // A value may not smuggle in executor references ({{steps.…}}) or be empty.
      if (Object.values(params).some((value) => value === '' || /\{\{|\}\}/.test(value))) continue;
      const plan = PlanSchema.safeParse(fillPlaceholders(runbook.plan, params));
      if (plan.success) return { runbook, params, plan: plan.data };
    }
  }
  return undefined;
}

function cleanValue(value: string): string {
  if (/^(".*"|'.*')$/s.test(value)) return value.slice(1, -1).trim();
  // Slack sends links as <https://x|label> or <https://x>.
  if (value.startsWith('<') && value.endsWith('>')) return value.slice(1, -1).split('|')[0]!;
  return value;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
