/**
 * The PolicyEngine port on Cedar (`@cedar-policy/cedar-wasm`, decision 028): texts are parsed and
 * validated against Tandem's schema once, kept pre-parsed in the wasm module under their hash, and
 * every decision is one `statefulIsAuthorized` call (no re-parse: a decision takes microseconds).
 */
import { createHash } from 'node:crypto';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import type { Result } from '../agent/model/errors.ts';
import {
  POLICY_ACTIONS,
  type PolicyDecision,
  type PolicyEngine,
  type PolicyProblem,
  type PolicyQuestion,
  type PolicyRule,
  type PolicySource,
} from '../agent/ports/policy.ts';
import { acceptedAgain, inFileOrder, oneLine, parsePolicySet, type ParsedRule } from './parse-policy-set.ts';
import { problemAt } from './source-position.ts';
import { tandemSchema } from './schema.ts';
import { requestOf } from './cedar-request.ts';

export interface LoadedPolicy extends PolicyEngine {
  /** Rules with no condition on who: each permits everyone, which is seldom what was meant. */
  readonly warnings: readonly PolicyProblem[];
}

export function policyHash(sources: readonly PolicySource[], schema = tandemSchema()): string {
  const hash = createHash('sha256').update(schema).update('\0');
  for (const source of [...sources].sort((a, b) => a.file.localeCompare(b.file))) hash.update(source.file).update('\0').update(source.text).update('\0');
  return hash.digest('hex');
}

export function loadPolicy(sources: readonly PolicySource[], schema = tandemSchema()): Result<LoadedPolicy, PolicyProblem[]> {
  const parsed = parsePolicySet(sources);
  if (!parsed.ok) return parsed;
  const rules = parsed.value;
  const staticPolicies = Object.fromEntries(rules.map((rule) => [rule.id, rule.text]));
  const validated = cedar.validate({ schema, policies: { staticPolicies }, validationSettings: { mode: 'strict' } });
  if (validated.type === 'failure')
    return { ok: false, error: validated.errors.map((error) => ({ file: 'schema', line: 1, column: 1, message: oneLine(error) })) };
  const byId = new Map(rules.map((rule) => [rule.id, rule]));
  // The validator names only the rules it was given, each from one of `sources`; it lists them in its own order
  // (by rule id), so they are put back in the files' order, as a person reads them.
  const problems = validated.validationErrors.map((error) => placed(byId.get(error.policyId)!, sources, error.error));
  if (problems.length) return { ok: false, error: inFileOrder(problems, sources) };

  const hash = policyHash(sources, schema);
  // Cedar evaluates every rule of a set: one set per action holds only the rules that can apply to it.
  // (Splitting further by the scope's group was measured slower: each extra call serialises the request again.)
  const sets = new Map<string, Record<string, string>>();
  for (const action of POLICY_ACTIONS)
    for (const rule of rules)
      if (rule.actions === undefined || rule.actions.includes(action)) {
        const key = setKey(hash, action);
        sets.set(key, { ...sets.get(key), [rule.id]: rule.text });
      }
  for (const [key, staticPolicies] of sets) acceptedAgain(cedar.preparsePolicySet(key, { staticPolicies }));
  const groups = [...new Set(rules.flatMap((rule) => [...rule.text.matchAll(/Group::"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!)))];
  // Cedar names the rules behind an answer in no fixed order: they are given in the policy's, so what a decision
  // records, and the rule a refusal or the plan message names first, does not change from one process to the next.
  const order = new Map(rules.map((rule, index) => [rule.id, index]));
  const warnings = rules
    .filter((rule) => rule.effect === 'permit' && rule.anyPrincipal)
    .map((rule) => ({ file: rule.file, line: rule.line, column: 1, message: `rule "${rule.id}" has no condition on principal: it permits everyone` }));

  return {
    ok: true,
    value: {
      hash,
      sources: sources.map((source) => ({ ...source })),
      rules: rules.map(publicRule),
      groups,
      warnings,
      decide: (question) => decide(hash, sets, order, question),
      whoMay: (question) => {
        const permits = new Set(whoMay((probe) => decide(hash, sets, order, probe), rules, groups, question));
        return rules.filter((rule) => rule.effect === 'permit' && permits.has(rule.id)).map(publicRule);
      },
    },
  };
}

const setKey = (hash: string, action: string) => `${hash}:${action}`;

/** Cedar's rule over the sets asked: a forbid that matched anywhere denies; otherwise a permit that matched allows. */
function decide(hash: string, sets: ReadonlyMap<string, unknown>, order: ReadonlyMap<string, number>, question: PolicyQuestion): PolicyDecision {
  const request = requestOf(question);
  const keys = [setKey(hash, question.action)].filter((key) => sets.has(key));
  const permits: string[] = [];
  const forbids: string[] = [];
  const errors: string[] = [];
  let failed = false;
  for (const key of keys) {
    const answer = cedar.statefulIsAuthorized({ ...request, preparsedPolicySetId: key });
    if (answer.type === 'failure') {
      failed = true;
      errors.push(...answer.errors.map(oneLine));
      continue;
    }
    const { decision, diagnostics } = answer.response;
    (decision === 'allow' ? permits : forbids).push(...diagnostics.reason);
    errors.push(...diagnostics.errors.map((error) => `${error.policyId}: ${oneLine(error.error)}`));
  }
  const inPolicyOrder = (ids: string[]) => ids.sort((a, b) => order.get(a)! - order.get(b)!);
  if (forbids.length || failed) return { permitted: false, rules: inPolicyOrder(forbids), errors };
  return { permitted: permits.length > 0, rules: inPolicyOrder(permits), errors };
}

const publicRule = ({ text: _text, offset: _offset, anyPrincipal: _any, actions: _actions, ...rule }: ParsedRule): PolicyRule => rule;

/**
 * Which permit rules could permit this for somebody: the question asked for probe principals (nobody in
 * particular, the requester, each user the policy names; in no group, in every group, in each one).
 * Cedar's partial evaluation keeps `principal in G && <false>` as a residual, so it cannot tell.
 */
function whoMay(
  decide: (question: PolicyQuestion) => PolicyDecision,
  rules: readonly ParsedRule[],
  groups: readonly string[],
  question: Omit<PolicyQuestion, 'user' | 'groups'>,
): string[] {
  const users = [
    ...new Set([
      '\u0000anyone',
      question.situation.requester,
      ...rules.flatMap((rule) => [...rule.text.matchAll(/User::"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!)),
    ]),
  ];
  const memberships = [[], [...groups], ...groups.map((group) => [group])];
  const found = new Set<string>();
  for (const user of users.slice(0, 20))
    for (const inGroups of memberships) {
      const decision = decide({ ...question, user, groups: inGroups });
      if (decision.permitted) decision.rules.forEach((id) => found.add(id));
    }
  return [...found];
}

function placed(rule: ParsedRule, sources: readonly PolicySource[], error: cedar.DetailedError): PolicyProblem {
  const source = sources.find((candidate) => candidate.file === rule.file)!;
  return problemAt(source.file, source.text, rule.offset + (error.sourceLocations?.[0]?.start ?? 0), oneLine(error));
}
