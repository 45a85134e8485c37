/**
 * The PolicyEngine port on Cedar (`@cedar-policy/cedar-wasm`, decision 028): texts are parsed and
 * validated against Tandem's schema once, kept pre-parsed in the wasm module under their hash, and
 * every decision is one `statefulIsAuthorized` call (no re-parse: a decision takes microseconds).
 */
import { createHash } from 'node:crypto';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import type { Result } from '../agent/errors.ts';
import type { PolicyDecision, PolicyEngine, PolicyProblem, PolicyQuestion, PolicyRule, PolicySource } from '../agent/ports/policy.ts';
import { oneLine, parsePolicySet, type ParsedRule } from './parse-policy-set.ts';
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
  const problems = validated.validationErrors.map((error) => placed(byId.get(error.policyId), sources, error.error));
  if (problems.length) return { ok: false, error: problems };

  const hash = policyHash(sources, schema);
  const preparsed = cedar.preparsePolicySet(hash, { staticPolicies });
  if (preparsed.type === 'failure')
    return { ok: false, error: preparsed.errors.map((error) => ({ file: 'policy', line: 1, column: 1, message: oneLine(error) })) };
  const groups = [...new Set(rules.flatMap((rule) => [...rule.text.matchAll(/Group::"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!)))];
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
      decide: (question) => decide(hash, question),
      whoMay: (question) => {
        const permits = new Set(whoMay(staticPolicies, question));
        return rules.filter((rule) => rule.effect === 'permit' && permits.has(rule.id)).map(publicRule);
      },
    },
  };
}

function decide(hash: string, question: PolicyQuestion): PolicyDecision {
  const answer = cedar.statefulIsAuthorized({ ...requestOf(question), preparsedPolicySetId: hash });
  if (answer.type === 'failure') return { permitted: false, rules: [], errors: answer.errors.map(oneLine) };
  const { decision, diagnostics } = answer.response;
  return {
    permitted: decision === 'allow',
    rules: diagnostics.reason,
    errors: diagnostics.errors.map((error) => `${error.policyId}: ${oneLine(error.error)}`),
  };
}

const publicRule = ({ text: _text, offset: _offset, anyPrincipal: _any, ...rule }: ParsedRule): PolicyRule => rule;

/** Partial evaluation with the principal unknown: rules satisfied or left depending on who asks. */
function whoMay(staticPolicies: Record<string, string>, question: Omit<PolicyQuestion, 'user' | 'groups'>): string[] {
  const request = requestOf({ ...question, user: '?', groups: [] });
  const answer = cedar.isAuthorizedPartial({
    principal: null,
    action: request.action,
    resource: request.resource,
    context: request.context,
    policies: { staticPolicies },
    entities: request.entities.filter((entity) => !('id' in entity.uid && entity.uid.id === '?')),
  });
  if (answer.type === 'failure' || answer.response.decision === 'deny') return [];
  return [...answer.response.satisfied, ...answer.response.nontrivialResiduals];
}

function placed(rule: ParsedRule | undefined, sources: readonly PolicySource[], error: cedar.DetailedError): PolicyProblem {
  const source = sources.find((candidate) => candidate.file === rule?.file);
  if (!rule || !source) return { file: rule?.file ?? 'policy', line: rule?.line ?? 1, column: 1, message: oneLine(error) };
  return problemAt(source.file, source.text, rule.offset + (error.sourceLocations?.[0]?.start ?? 0), oneLine(error));
}
