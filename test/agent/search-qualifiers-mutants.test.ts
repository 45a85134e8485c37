/**
 * Issue 37: the repositories a GitHub search reaches, read from its qualifiers, for negated and mixed
 * qualifiers anywhere in the query (a survivor let `repo:evil/x repo:acme/api` pass an allow-list of acme/api).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { searchQueryRepositories } from '../../src/integrations/github/search-qualifiers.ts';

describe('the repositories a search names', () => {
  it.each([
    ['one repository', 'repo:acme/api', ['acme/api']],
    ['a repository among other qualifiers', 'is:open repo:acme/api label:bug', ['acme/api']],
    ['the first and the last qualifier of a query', 'repo:evil/x is:open repo:acme/api', ['evil/x', 'acme/api']],
    ['a whole organisation or user', 'org:globex user:bob', ['globex/*', 'bob/*']],
    ['the qualifier in any case, the name as written', 'REPO:Acme/Api Org:Globex', ['Acme/Api', 'Globex/*']],
    ['a quoted repository', 'repo:"acme/api" is:open', ['acme/api']],
    ['a qualifier after a tab', 'is:open\trepo:acme/api', ['acme/api']],
    ['a negated qualifier beside a real one', '-repo:acme/api repo:evil/x', ['evil/x']],
    ['names with dots, dashes and underscores', 'repo:my-org/my_repo.js', ['my-org/my_repo.js']],
  ])('%s: %s', (_name, query, expected) => {
    expect(searchQueryRepositories(query)).toEqual(expected);
  });

  it.each([
    ['no qualifier', 'is:open label:bug'],
    ['an empty query', ''],
    ['only negated qualifiers: they narrow nothing', '-repo:acme/api -org:globex'],
    ['a qualifier glued to a word', 'foorepo:acme/api'],
    ['a quote left open', 'repo:"acme/api'],
    ['a qualifier with nothing after it', 'repo: acme/api'],
  ])('%s reaches every repository: %s', (_name, query) => {
    expect(searchQueryRepositories(query)).toBe('any');
  });

  it('for any mix of qualifiers, negated ones and other words, in any order, names exactly the qualifiers not negated, in order', () => {
    const part = fc.stringMatching(/^[a-z0-9][a-z0-9_.-]{0,6}$/);
    const token = fc.oneof(
      fc.record({ kind: fc.constantFrom('repo', 'org', 'user'), negated: fc.boolean(), owner: part, name: part }),
      fc.constantFrom('is:open', 'label:bug', 'fix', 'NOT', 'in:title'),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 6 }), (tokens) => {
        const query = tokens
          .map((t) => (typeof t === 'string' ? t : `${t.negated ? '-' : ''}${t.kind}:${t.kind === 'repo' ? `${t.owner}/${t.name}` : t.owner}`))
          .join(' ');
        const named = tokens.flatMap((t) => (typeof t === 'string' || t.negated ? [] : [t.kind === 'repo' ? `${t.owner}/${t.name}` : `${t.owner}/*`]));
        expect(searchQueryRepositories(query)).toEqual(named.length ? named : 'any');
      }),
    );
  });
});
