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
    const parsed = cedar.checkParsePolicySet({ staticPolicies: source.text });
    if (parsed.type === 'failure') {
      for (const error of parsed.errors) problems.push(problemAt(source.file, source.text, error.sourceLocations?.[0]?.start ?? 0, oneLine(error)));
      continue;
    }
    const parts = cedar.policySetTextToParts(source.text);
    if (parts.type === 'failure') {
      problems.push(problemAt(source.file, source.text, 0, parts.errors.map(oneLine).join('; ')));
      continue;
    }
    let cursor = 0;
    for (const text of parts.policies) {
      const found = source.text.indexOf(text, cursor);
      const at = found < 0 ? cursor : found;
      cursor = at + text.length;
      const offset = Buffer.byteLength(source.text.slice(0, at), 'utf8');
      const rule = describeRule(source, text, offset);
      if (!rule.ok) problems.push(rule.error);
      else rules.push(rule.value);
    }
    if (parts.policy_templates.length > 0)
      problems.push(problemAt(source.file, source.text, 0, 'templates (?principal, ?resource) are not supported; write the rule out'));
  }
  const seen = new Map<string, ParsedRule>();
  for (const rule of rules) {
    const earlier = seen.get(rule.id);
    if (earlier)
      problems.push({ file: rule.file, line: rule.line, column: 1, message: `rule id "${rule.id}" is used twice (first at ${earlier.file}:${earlier.line})` });
    seen.set(rule.id, rule);
  }
  return problems.length ? { ok: false, error: problems } : { ok: true, value: rules };
}

function describeRule(source: PolicySource, text: string, offset: number): Result<ParsedRule, PolicyProblem> {
  const place = problemAt(source.file, source.text, offset, '');
  const json = cedar.policyToJson(text);
  if (json.type === 'failure') return { ok: false, error: { ...place, message: json.errors.map(oneLine).join('; ') } };
  const { effect, principal, action, conditions, annotations = {} } = json.json;
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

function actionsOf(action: ActionJson): string[] | undefined {
  if (action.op === 'All') return undefined;
  if ('entity' in action) return [entityId(action.entity)];
  if ('entities' in action) return action.entities.map(entityId);
  return undefined;
}

type PrincipalJson = Extract<cedar.PolicyToJsonAnswer, { type: 'success' }>['json']['principal'];

/** Words for who a rule's scope names, when the rule does not say (`@who`). */
function whoOf(principal: PrincipalJson): string {
  if (principal.op === '==' && 'entity' in principal) return `user ${entityId(principal.entity)}`;
  if (principal.op === 'in' && 'entity' in principal) return `a member of group ${entityId(principal.entity)}`;
  return 'anyone the rule allows';
}

const entityId = (uid: cedar.EntityUidJson) => ('__entity' in uid ? uid.__entity.id : uid.id);

export const oneLine = (error: cedar.DetailedError) => [error.message, error.help ? `(${error.help})` : ''].filter(Boolean).join(' ').replace(/\s+/g, ' ');
