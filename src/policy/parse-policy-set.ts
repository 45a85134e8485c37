/**
 * Policy texts to Cedar's policy set: each rule gets its id (`@id("…")`, or `file:line`), its place in
 * its file, and what it says about itself (`@approvals`, `@who`, `@reason`). Every problem names
 * `file:line:column`; nothing is skipped silently.
 */
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import type { PolicyProblem, PolicyRule, PolicySource } from '../agent/ports/policy.ts';
import type { Result } from '../agent/model/errors.ts';
import { problemAt } from './source-position.ts';

export interface ParsedRule extends PolicyRule {
  text: string;
  /** Byte offset of the rule in its file, to place the validator's errors. */
  offset: number;
  /** The rule says nothing about who (`principal` unconstrained, no condition mentions it). */
  anyPrincipal: boolean;
  /** The actions its scope names; undefined: every action. */
  actions: readonly string[] | undefined;
}

export function parsePolicySet(sources: readonly PolicySource[]): Result<ParsedRule[], PolicyProblem[]> {
  const problems: PolicyProblem[] = [];
  const rules: ParsedRule[] = [];
  for (const source of sources) {
    // Split first: asked to parse a set with a template, Cedar only says "static policy set includes a template".
    const parts = cedar.policySetTextToParts(source.text);
    if (parts.type === 'failure') {
      for (const error of parts.errors) problems.push(problemAt(source.file, source.text, error.sourceLocations?.[0]?.start ?? 0, oneLine(error)));
      continue;
    }
    if (parts.policy_templates.length > 0) {
      problems.push(problemAt(source.file, source.text, 0, 'templates (?principal, ?resource) are not supported; write the rule out'));
      continue;
    }
    // Cedar hands the rules back verbatim but keyed "policy0", "policy1", "policy10", "policy2"…: put them back in
    // the file's order, each at its own place (the same text twice is two rules).
    const taken = new Set<number>();
    const located = parts.policies.map((text) => ({ text, at: placeOf(source.text, text, taken) })).sort((a, b) => a.at - b.at);
    for (const { text, at } of located) {
      const offset = Buffer.byteLength(source.text.slice(0, Math.max(at, 0)), 'utf8');
      const rule = describeRule(source, text, offset);
      if (!rule.ok) problems.push(rule.error);
      else rules.push(rule.value);
    }
  }
  const seen = new Map<string, ParsedRule>();
  for (const rule of rules) {
    const earlier = seen.get(rule.id);
    if (earlier)
      problems.push({ file: rule.file, line: rule.line, column: 1, message: `rule id "${rule.id}" is used twice (first at ${earlier.file}:${earlier.line})` });
    seen.set(rule.id, rule);
  }
  return problems.length ? { ok: false, error: inFileOrder(problems, sources) } : { ok: true, value: rules };
}

/** Problems in the order of the files as given, then by line and column. */
export function inFileOrder(problems: PolicyProblem[], sources: readonly PolicySource[]): PolicyProblem[] {
  const fileIndex = new Map(sources.map((source, index) => [source.file, index]));
  const rank = (problem: PolicyProblem) => fileIndex.get(problem.file) ?? sources.length;
  return problems.sort((a, b) => rank(a) - rank(b) || a.line - b.line || a.column - b.column);
}

/** Where a rule's text first stands in its file at a place no earlier rule took (-1: nowhere). */
function placeOf(fileText: string, ruleText: string, taken: Set<number>): number {
  let at = fileText.indexOf(ruleText);
  while (at >= 0 && taken.has(at)) at = fileText.indexOf(ruleText, at + 1);
  taken.add(at);
  return at;
}

function describeRule(source: PolicySource, text: string, offset: number): Result<ParsedRule, PolicyProblem> {
  const place = problemAt(source.file, source.text, offset, '');
  const { effect, principal, action, conditions, annotations = {} } = acceptedAgain(cedar.policyToJson(text)).json;
  const approvals = annotations['approvals'] === undefined ? 1 : Number(annotations['approvals']);
  if (!Number.isInteger(approvals) || approvals < 1 || approvals > 10)
    return { ok: false, error: { ...place, message: `@approvals("${annotations['approvals']}") must be a whole number from 1 to 10` } };
  const conditionText = JSON.stringify(conditions);
  return {
    ok: true,
    value: {
      id: annotations['id'] ?? `${source.file}:${place.line}`,
      effect,
      approvals,
      who: annotations['who'] ?? whoOf(principal),
      reason: annotations['reason'],
      file: source.file,
      line: place.line,
      text,
      offset,
      anyPrincipal: principal.op === 'All' && !conditionText.includes('"principal"'),
      actions: actionsOf(action),
    },
  };
}

type ActionJson = Extract<cedar.PolicyToJsonAnswer, { type: 'success' }>['json']['action'];

/** Undefined for `action` alone (`op: "All"`, which carries neither `entity` nor `entities`). */
function actionsOf(action: ActionJson): string[] | undefined {
  if ('entity' in action) return [entityId(action.entity)];
  if ('entities' in action) return action.entities.map(entityId);
  return undefined;
}

type PrincipalJson = Extract<cedar.PolicyToJsonAnswer, { type: 'success' }>['json']['principal'];

/** Words for who a rule's scope names, when the rule does not say (`@who`). */
function whoOf(principal: PrincipalJson): string {
  if (principal.op === '==' && 'entity' in principal) return `user ${entityId(principal.entity)}`;
  // After `==`, only `in` carries an `entity` (`is` holds it under `in`).
  if ('entity' in principal) return `a member of group ${entityId(principal.entity)}`;
  return 'anyone the rule allows';
}

const entityId = (uid: cedar.EntityUidJson) => ('__entity' in uid ? uid.__entity.id : uid.id);

export const oneLine = (error: cedar.DetailedError) => singleLine([error.message, error.help ? `(${error.help})` : ''].filter(Boolean).join(' '));

/**
 * Cedar's words on one line: a run of whitespace becomes one space, except inside the double quotes Cedar puts
 * around what it means (an id, a string, a token), which are printed as written — only a line break or tab in
 * them is written as `\n` or `\t`, so `User::"a  b"` is not shown as another id.
 */
export function singleLine(text: string): string {
  return text.replace(/"(?:[^"\\]|\\.)*"|\s+/g, (match) => (match.startsWith('"') ? match.replace(/\r?\n/g, '\\n').replace(/\t/g, '\\t') : ' '));
}

type CedarAnswer = { type: 'success' } | { type: 'failure'; errors: cedar.DetailedError[] };

/**
 * Cedar's answer about a text it has already accepted (a rule it split out of a file, a set it validated against
 * the schema). A failure there is Cedar contradicting itself, not a mistake in the policy, and no problem of ours
 * could place it: it stops the load with Cedar's words instead of being turned into a `file:line` nobody wrote.
 */
export function acceptedAgain<Answer extends CedarAnswer>(answer: Answer): Extract<Answer, { type: 'success' }> {
  if (answer.type === 'failure') throw new Error(`Cedar refused a policy text it had accepted: ${answer.errors.map(oneLine).join('; ')}`);
  return answer as Extract<Answer, { type: 'success' }>;
}
