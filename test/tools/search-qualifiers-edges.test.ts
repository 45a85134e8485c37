/**
 * Issue 37: the GitHub search reader (search-query.ts, behind search-qualifiers.ts) at its edges, as one table of
 * queries and exactly what the allow-list is told: the repositories and accounts the query reaches (`'any'`: every
 * one), or the problem a person reads. Each row is a mutant of the reader that the property tests let live.
 */
import { describe, expect, it } from 'vitest';
import { searchReach } from '../../src/integrations/github/search-qualifiers.ts';

const reaches = (...repositories: string[]) => repositories;
const any = 'any' as const;
const unreadable = (problem: string) => ({ unreadable: problem });

describe('what a search query reaches, at the edges of the reader', () => {
  it.each([
    // Names: a space before the colon, the long key, a value that names nothing, an account GitHub would not accept.
    ['a key with a space before its colon still names', 'repo:acme/api repo :evil/x', reaches('acme/api', 'evil/x')],
    ['repository: names a repository, not an account', 'repo:acme/api repository:globex/web', reaches('acme/api', 'globex/web')],
    [
      'repo: followed by a parenthesis names nothing',
      'repo:acme/api repo: (is:open)',
      unreadable('repo: does not name a repository as GitHub spells it (owner/name)'),
    ],
    ['org: followed by a parenthesis names nothing', 'repo:acme/api org: (is:open)', unreadable('org: does not name an account as GitHub spells it')],
    ['an account with a slash', 'repo:acme/api user:acme/api', unreadable('user:acme/api does not name an account as GitHub spells it')],
    ['an account starting with a dash', 'repo:acme/api org:-evil', unreadable('org:-evil does not name an account as GitHub spells it')],
    // %-escapes: only a % with two hex digits is one.
    ['a % before one hex digit is text', 'repo:acme/api 100%Ax', reaches('acme/api')],
    // Quotes: a closing quote may end a group; a backslash outside quotes is text.
    ['a quoted value closing a group', 'repo:acme/api (label:"help wanted")', reaches('acme/api')],
    ['a backslash outside any quotes', 'repo:acme/api dir\\x "a phrase"', reaches('acme/api')],
    // A dash must stand right before what it excludes.
    ['a dash at the end', 'repo:acme/api -', unreadable('a "-" must stand right before what it excludes')],
    ['two dashes', 'repo:acme/api --label:x', unreadable('a "-" must stand right before what it excludes')],
    ['a dash before a closing parenthesis', 'repo:acme/api (is:open -)', unreadable('a "-" must stand right before what it excludes')],
    ['a negated group', 'repo:acme/api -(label:bug OR label:p1)', reaches('acme/api')],
    // Operators: GitHub's are upper case; each needs a term on its sides.
    ['a lower-case or at the end is a word, and makes the query unbounded', 'repo:acme/api or', any],
    ['OR first', 'OR repo:acme/api', unreadable('OR needs a term on each side')],
    ['OR first inside a group', 'repo:acme/api (OR label:x)', unreadable('OR needs a term on each side')],
    ['OR last inside a group', 'repo:acme/api (label:x OR)', unreadable('OR needs a term on each side')],
    ['AND last', 'repo:acme/api AND', unreadable('AND needs a term on each side')],
    ['AND before OR', 'repo:acme/api AND OR is:open', unreadable('AND needs a term on each side')],
    ['AND NOT', 'repo:acme/api AND NOT label:bug', reaches('acme/api')],
    ['NOT before a closing parenthesis', 'repo:acme/api (label:x NOT)', unreadable('NOT needs a term after it')],
    // Parentheses: GitHub's five levels are allowed; what follows a group is at the top level again.
    ['five levels of parentheses', 'repo:acme/api (((((is:open)))))', reaches('acme/api')],
    ['a scope after a group bounds the query', '(label:a OR label:b) repo:acme/api', reaches('acme/api')],
    ['an unbounded first OR branch', 'label:x OR repo:acme/api', any],
  ])('%s: %s', (_name, query, reach) => {
    expect(searchReach(query)).toEqual(reach);
  });
});
