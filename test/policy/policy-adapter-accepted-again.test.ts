/**
 * A Cedar call on a text Cedar has already accepted (a rule split out of a file, a set validated against the schema)
 * cannot fail for a policy anyone writes; if Cedar ever contradicts itself the load stops with Cedar's own words
 * (decision 027: the one place that turns such a failure into our error, tested here with answers that do fail).
 */
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { describe, expect, it } from 'vitest';
import { acceptedAgain } from '../../src/policy/parse-policy-set.ts';

describe('a Cedar answer about a text it had accepted', () => {
  it('is passed on when it succeeds', () => {
    const answer = cedar.policyToJson('permit (principal, action, resource);');
    expect(acceptedAgain(answer)).toBe(answer);
  });

  it('stops the load with Cedar’s words when it fails', () => {
    expect(() => acceptedAgain(cedar.preparsePolicySet('broken', { staticPolicies: { a: 'permit (' } }))).toThrow(
      new Error('Cedar refused a policy text it had accepted: failed to parse policy with id `a` from string: unexpected end of input'),
    );
  });

  it('gives every error Cedar gave, each on one line with its help', () => {
    const failure = {
      type: 'failure' as const,
      errors: [
        { message: 'first\nproblem', help: null, code: null, url: null, severity: null, sourceLocations: [], related: [] },
        { message: 'second', help: 'try  this', code: null, url: null, severity: null, sourceLocations: [], related: [] },
      ],
    };
    expect(() => acceptedAgain<cedar.CheckParseAnswer>(failure)).toThrow(
      new Error('Cedar refused a policy text it had accepted: first problem; second (try this)'),
    );
  });
});
