/**
 * Reading what a GitHub search can reach (issue search syntax): every repository it may return is in
 * what the reader says, and what it cannot read it says so instead of guessing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { searchReach } from '../../src/integrations/github/search-query.ts';

const reach = (query: string) => {
  const read = searchReach(query);
  return 'unreadable' in read ? { unreadable: true } : read.repositories === 'any' ? 'any' : [...read.repositories].sort();
};

describe('what a search reaches', () => {
  it.each([
    ['repo:acme/api is:open', ['acme/api']],
    ['repo:acme/api repo:evil/x', ['acme/api', 'evil/x']],
    ['repo:evil/x repo:acme/api', ['acme/api', 'evil/x']],
    ['repo:acme/api OR (repo:evil/x)', ['acme/api', 'evil/x']],
    ['repo:acme/api OR is:open', 'any'],
    ['repo:acme/api or is:open', 'any'],
    ['is:open (repo:acme/api OR org:globex)', ['acme/api', 'globex/*']],
    ['user:octo label:bug', ['octo/*']],
    ['REPO:"acme/api" is:open', ['acme/api']],
    ['-repo:acme/api is:open', 'any'],
    ['NOT repo:acme/api', 'any'],
    ['-(repo:acme/api) repo:acme/web', ['acme/web']],
    ['"text repo:evil/x inside quotes" repo:acme/api', ['acme/api']],
    ['is:issue fix login', 'any'],
    ['repo:acme/api AND is:open', ['acme/api']],
  ])('%s', (query, expected) => {
    expect(reach(query)).toEqual(expected);
  });

  it.each([
    'repo:acme/..',
    'repo:acme',
    'repo:',
    'org:',
    'org:-evil',
    'repo:acme/api (is:open',
    'repo:acme/api )',
    'repo:acme/api "open',
    'repo:acme/api OR',
    '() repo:acme/api',
    'repo:acme/api,evil/x',
  ])('cannot read %s, and says so', (query) => {
    expect(reach(query)).toEqual({ unreadable: true });
  });

  it('never leaves out a repository a repo: qualifier names outside a negation, whatever surrounds it', () => {
    const word = fc.constantFrom('is:open', 'label:bug', 'fix', '"a b"', 'OR', 'AND', 'NOT', '(', ')', '-label:x', 'org:acme', 'repo:acme/api');
    fc.assert(
      fc.property(fc.array(word, { maxLength: 8 }), fc.array(word, { maxLength: 8 }), (before, after) => {
        const read = searchReach([...before, 'repo:evil/secret', ...after].join(' '));
        if ('unreadable' in read || read.repositories === 'any') return;
        // A bounded answer always holds the evil repository unless it sits under a NOT.
        const negated = before.at(-1) === 'NOT' || before.includes('NOT') || before.includes('(');
        if (!negated) expect(read.repositories).toContain('evil/secret');
      }),
    );
  });

  it('reads any text without throwing: an answer or a reason', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (query) => {
        const read = searchReach(query);
        expect('unreadable' in read ? typeof read.unreadable : read.repositories === 'any' || Array.isArray(read.repositories)).toBeTruthy();
      }),
    );
  });
});
