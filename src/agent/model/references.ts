/**
 * `{{steps.<id>.output.<path>}}` references inside plan args: finding them (for validation) and
 * filling them from recorded outputs (for execution). A string that is exactly one reference takes
 * the referenced value with its type (a number stays a number); a reference inside longer text is
 * written into the text.
 */
import { refuse, type Refused } from './refusal.ts';

export interface Reference {
  /** Where the reference sits inside the args, e.g. `body` or `labels.0`. */
  at: string;
  stepId: string;
  /** Path inside the step's output; empty for the whole output. */
  path: string[];
  /** The string is exactly this one reference. */
  whole: boolean;
  raw: string;
}

// Neither pattern has an optional group (a `*` inside a group matches the empty string): every group of a match is set.
const REFERENCE = /\{\{\s*steps\.([A-Za-z][A-Za-z0-9_-]*)\.output((?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;
const ANY_BRACES = /\{\{([^{}]*)\}\}/g;

/** Every reference in a JSON-like value, plus each `{{ … }}` that looks like a reference but is malformed. */
export function findReferences(value: unknown, at = ''): { references: Reference[]; malformed: { at: string; text: string }[] } {
  const references: Reference[] = [];
  const malformed: { at: string; text: string }[] = [];
  walk(value, at, (text, where) => {
    for (const match of text.matchAll(ANY_BRACES)) {
      const inner = match[0];
      const parsed = [...inner.matchAll(REFERENCE)][0];
      if (!parsed) {
        if (/^\s*steps\b/.test(match[1]!)) malformed.push({ at: where, text: inner });
        continue;
      }
      references.push({
        at: where,
        stepId: parsed[1]!,
        path: parsed[2]!.split('.').filter(Boolean),
        whole: text.trim() === inner,
        raw: inner,
      });
    }
  });
  return { references, malformed };
}

function walk(value: unknown, at: string, visit: (text: string, at: string) => void): void {
  if (typeof value === 'string') visit(value, at);
  else if (Array.isArray(value)) value.forEach((item, index) => walk(item, join(at, String(index)), visit));
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) walk(inner, join(at, key), visit);
  }
}

function join(at: string, key: string): string {
  return at ? `${at}.${key}` : key;
}

/** Reads `path` inside `value`; undefined when any part is missing. */
export function readPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * Fills the references in the string args named by `names` (a model step's `instruction`) as data: the text keeps a
 * placeholder for each (`[input 1]`, numbered across those args in order) and the value, filled, is returned under
 * its label (`input 1`), for the tool to hand the model as data beside the text (CONTRACT §4, §6). Reference syntax
 * inside a value is text: each reference is filled once, from the plan's own words.
 */
export function fillAsData(
  args: Record<string, unknown>,
  names: readonly string[],
  outputs: ReadonlyMap<string, Record<string, unknown>>,
): Refused<{ args: Record<string, unknown>; data: Record<string, unknown> }, 'unresolved-reference'> {
  const problems: string[] = [];
  const data: Record<string, unknown> = {};
  const kept = { ...args };
  for (const name of names) {
    const text = args[name];
    if (typeof text !== 'string' || !text.includes('{{')) continue;
    kept[name] = text.replace(REFERENCE, (raw) => {
      const label = `input ${Object.keys(data).length + 1}`;
      // `raw` is exactly one reference, so its value keeps its type, as a whole-string reference's does.
      data[label] = fill(raw, name, outputs, problems, (value) => value);
      return `[${label}]`;
    });
  }
  return problems.length ? refuse('unresolved-reference', problems.join('; ')) : { ok: true, value: { args: kept, data } };
}

/**
 * Fills every reference from `outputs` (step id → recorded output). A reference that resolves to
 * nothing fails with a sentence naming the arg, the reference and what was missing.
 */
export function fillReferences(
  args: Record<string, unknown>,
  outputs: ReadonlyMap<string, Record<string, unknown>>,
  quote: (text: string, at: string) => string = (text) => text,
): Refused<Record<string, unknown>, 'unresolved-reference'> {
  const problems: string[] = [];
  const filled = fill(args, '', outputs, problems, quote) as Record<string, unknown>;
  return problems.length ? refuse('unresolved-reference', problems.join('; ')) : { ok: true, value: filled };
}

function fill(
  value: unknown,
  at: string,
  outputs: ReadonlyMap<string, Record<string, unknown>>,
  problems: string[],
  quote: (text: string, at: string) => string,
): unknown {
  if (Array.isArray(value)) return value.map((item, index) => fill(item, join(at, String(index)), outputs, problems, quote));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, fill(inner, join(at, key), outputs, problems, quote)]));
  }
  if (typeof value !== 'string' || !value.includes('{{')) return value;
  const { references } = findReferences(value, at);
  if (references.length === 0) return value;
  const resolve = (ref: Pick<Reference, 'stepId' | 'path' | 'raw'>): unknown => {
    const output = outputs.get(ref.stepId);
    if (!output) {
      problems.push(`${at}: ${ref.raw} has no recorded output of step ${ref.stepId}`);
      return undefined;
    }
    const found = readPath(output, ref.path);
    if (found === undefined || found === null) {
      // Never the whole output: that exists, or the check above has refused it; so the path is never empty here.
      problems.push(`${at}: ${ref.raw} resolved to nothing (${ref.stepId}'s output has no ${ref.path.join('.')})`);
    }
    return found;
  };
  // A whole-string reference is the string's only `{{ … }}`.
  if (references[0]!.whole) {
    const found = resolve(references[0]!);
    return typeof found === 'string' ? quote(found, at) : found;
  }
  return value.replace(REFERENCE, (raw, stepId: string, rest: string) => {
    const found = resolve({ stepId, path: rest.split('.').filter(Boolean), raw });
    // A reference that resolved to nothing is a problem already, and the text is then thrown away.
    return quote(typeof found === 'object' ? JSON.stringify(found) : String(found), at);
  });
}
