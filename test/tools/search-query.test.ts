/**
 * What a GitHub search can reach, as the allow-list reads it: every name in the text is judged, only
 * plain top-level repo:/org:/user: qualifiers bound the query, and anything unclear is refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRepositoryAllowed, repositoryRefusal } from '../../src/agent/model/repository-allow-list.ts';
import { searchQueryReach } from '../../src/integrations/github/search-query.ts';
import { createGithubSearchIssuesTool } from '../../src/integrations/tools/github/github-search-issues.ts';
import { said } from '../helpers/words.ts';

const LIST = ['acme/api', 'globex/*'];
const search = createGithubSearchIssuesTool(undefined);
/** The refusal a person reads, or null when the query may run under LIST. */
const verdict = (query: string) => {
  const refusal = repositoryRefusal(LIST, search, { query, limit: 20 }, 'filled');
  return refusal ? said(refusal.reason) : null;
};
const allowed = (query: string) => verdict(query) === null;

describe('a search query under TANDEM_REPOS', () => {
  it.each([
    'repo:acme/api is:open',
    'repo:ACME/Api is:issue label:"help wanted"',
    'repo:acme/api repo:globex/web is:pr',
    'org:globex is:open',
    'user:globex sort:updated-desc',
    'is:open repo:acme/api NOT label:wontfix',
    'repo:acme/api -label:bug -"flaky test"',
    'repo:acme/api (label:bug OR label:p1)',
    'repo:acme/api is:open OR repo:globex/web is:closed',
    'repo:acme/api AND is:open',
    'repo:acme/api "text with repo:acme/api inside"',
    'repo:acme/api 日本語 émigré',
    'repo:acme/api -repo:globex/old',
  ])('runs %s', (query) => {
    expect(verdict(query)).toBeNull();
  });

  it.each([
    // Unbounded outright: the second branch names nothing at the top level (and evil/x is off the list too).
    ['repo:acme/api OR (repo:evil/x)', 'it reaches every repository'],
    ['repo:acme/api (repo:evil/x)', 'evil/x is not on the allow-list'],
    ['repo:evil/secret is:issue {{steps.s1.output.text}}', 'evil/secret is not on the allow-list'],
    ['is:open label:bug', 'it reaches every repository'],
    ['repo:acme/api OR is:open', 'it reaches every repository'],
    ['(repo:acme/api) is:open', 'it reaches every repository'],
    ['-repo:acme/api is:open', 'it reaches every repository'],
    ['NOT repo:acme/api', 'it reaches every repository'],
    // `not` may be NOT to GitHub: then `-repo:evil/x` is negated twice. Read either way, it is refused.
    ['is:open not -repo:evil/x repo:acme/api', 'it reaches every repository'],
    ['repo:acme/api not -repo:evil/x', 'evil/x is not on the allow-list'],
    ['label:x NOT is:open repo:acme/api', 'it reaches every repository'],
    ['repo:"acme/api" is:open', 'it reaches every repository'],
    ['REPO:acme/api is:open', 'it reaches every repository'],
    ['repo:acme/api "text with repo:evil/x inside quotes"', 'evil/x is not on the allow-list'],
    ['repo:acme/api org:evil', 'evil/* is not on the allow-list'],
    ['repo:acme/api owner:evil', 'evil/* is not on the allow-list'],
    ['repo:acme/.. is:open', 'does not name a repository as GitHub spells it'],
    ['repo:acme/api,evil/x', 'does not name a repository'],
    ['repo:acme/api\trepo:evil/x', 'a character other than a plain space'],
    ['repo:acme/api\u00a0is:open', 'a character other than a plain space'],
    ['repo:acme/api\u200bis:open', 'a character other than a plain space'],
    ['ｒｅｐｏ:evil/x repo:acme/api', 'evil/x is not on the allow-list'],
    ['repo:acme/api is%3Aopen', '%-escape'],
    ['repo:acme/api "unclosed', 'never closed'],
    ['repo:acme/api "a\\" repo:evil/x "', 'backslash'],
    ['repo:acme/api wo"rd', 'a quote inside a word'],
    ['repo:acme/api "phrase"x', 'closing quote must end its term'],
    ['repo:acme/api OR', 'OR needs a term on each side'],
    ['repo:acme/api AND OR is:open', 'needs a term on each side'],
    ['repo:acme/api is:open NOT', 'NOT needs a term after it'],
    ['repo:acme/api (is:open', 'never closed'],
    ['repo:acme/api is:open)', 'closes nothing'],
    ['repo:acme/api ()', 'empty parentheses'],
    ['repo:acme/api ((((((is:open))))))', 'deeper than'],
    ['repo:acme/api - is:open', 'a "-" must stand right before'],
    ['repo: acme/api', 'names nothing'],
  ])('refuses %s', (query, why) => {
    expect(verdict(query)).toContain(why);
  });

  it('tells a person what to change when the query is unbounded or unreadable', () => {
    expect(verdict('is:open')).toBe(
      'it reaches every repository, but TANDEM_REPOS allows only acme/api, globex/*; name the repository (repo:owner/name) at the top level, outside parentheses and OR',
    );
    expect(verdict('repo:acme/api (is:open')).toBe('it could not be fully understood (a "(" is never closed), and TANDEM_REPOS allows only acme/api, globex/*');
  });
});

/** Pieces a hostile query is made of: names on and off the list, operators, quotes, parentheses, unicode. */
const onList = fc.constantFrom('repo:acme/api', 'repo:ACME/API', 'org:globex', 'user:globex', 'repo:globex/web');
const offList = fc.constantFrom('repo:evil/x', 'org:evil', 'user:evil', 'repo:acme/web', 'Repo:evil/x', 'repo:acme/..', 'owner:evil');
const filler = fc.constantFrom(
  'is:open',
  'label:bug',
  'label:"help wanted"',
  '"quoted phrase"',
  '-label:x',
  'NOT',
  'OR',
  'AND',
  'or',
  'not',
  '(',
  ')',
  '-',
  '"',
  '{{steps.s1.output.text}}',
  '日本',
  'naïve',
  '\u00a0',
  '\u202e',
  '\t',
);
const piece = fc.oneof({ weight: 4, arbitrary: filler }, { weight: 2, arbitrary: onList }, { weight: 1, arbitrary: offList });
const hostileQuery = fc.array(piece, { minLength: 1, maxLength: 12 }).map((pieces) => pieces.join(' '));

/** An independent oracle: each repository or account named anywhere, as plainly as a reader could see it. */
function namesAnywhere(query: string): string[] {
  const text = query.normalize('NFKC');
  return [...text.matchAll(/(repo|repository|org|organization|user|owner)\s*:\s*"?([^\s"()]*)/gi)].map(([, key, value]) =>
    key!.toLowerCase().startsWith('repo') ? value! : `${value}/*`,
  );
}

describe('the search reader, on generated queries', () => {
  it('lets through only queries whose every named repository and account is on the list, and never throws', () => {
    fc.assert(
      fc.property(hostileQuery, (query) => {
        if (!allowed(query)) return;
        for (const name of namesAnywhere(query)) expect(isRepositoryAllowed(LIST, name)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses any query with a name off the list in it, wherever it is put', () => {
    fc.assert(
      fc.property(hostileQuery, offList, fc.nat(), (query, off, cut) => {
        const words = query.split(' ');
        const at = cut % (words.length + 1);
        const hostile = [...words.slice(0, at), off, ...words.slice(at)].join(' ');
        expect(allowed(hostile)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses a query once anything reaching everything is joined to it by OR, or it is all put in parentheses or negated', () => {
    fc.assert(
      fc.property(hostileQuery, filler, (query, other) => {
        // A query with an open quote could swallow what follows: only readable queries are extended.
        if (!searchQueryReach(query).ok) return;
        expect(allowed(`${query} OR ${other === 'OR' ? 'is:open' : other}`)).toBe(false);
        expect(allowed(`(${query})`)).toBe(false);
        expect(allowed(`NOT ${query}`)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('lets a plain repo: query with any free words through', () => {
    const word = fc.stringMatching(/^[\p{L}\p{N}][\p{L}\p{N}._:-]{0,10}$/u).filter(
      // A word NFKC folds into other characters (㈠ is "(一)") is read both ways, so it may be refused: leave it out here.
      (w) => w.normalize('NFKC') === w && namesAnywhere(w).length === 0 && !/^(and|or|not)$/i.test(w),
    );
    fc.assert(
      fc.property(onList, fc.array(word, { maxLength: 6 }), (scope, free) => {
        expect(verdict([scope, ...free].join(' '))).toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('never throws, whatever the text (any unicode, any length the tool takes)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 256 }), (query) => {
        const reach = searchQueryReach(query);
        expect(reach.ok || reach.problem.length > 0).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
