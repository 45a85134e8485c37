/**
 * What a GitHub issue search can reach, read from the whole query: quoted text, `key:value` and
 * `key:"value"` terms, `-` and `NOT` negation, `AND` / `OR` and parentheses. GitHub ORs repeated
 * `repo:` qualifiers and ANDs everything else, so a group of terms reaches at most the union of every
 * `repo:`, `org:` and `user:` it holds (at any depth) when at least one of its terms is bounded, and
 * anything otherwise; an OR reaches what all its branches reach. A negated term bounds nothing.
 * Anything the reader cannot take apart (an unclosed quote or parenthesis, an empty or malformed
 * qualifier value) is refused: the allow-list fails closed.
 */
import { isAccountName, isRepositoryName } from '../../agent/repository-name.ts';

export type SearchReach = { repositories: readonly string[] | 'any' } | { unreadable: string };

type Node = { kind: 'scope'; repository: string } | { kind: 'term' } | { kind: 'not'; node: Node } | { kind: 'and' | 'or'; nodes: Node[] };

const SCOPE_KEYS = new Set(['repo', 'org', 'user']);

class Unreadable extends Error {}

/** Words, quoted phrases and parentheses, each with the `-` that negates it. */
function tokenize(query: string): string[] {
  const tokens: string[] = [];
  let at = 0;
  while (at < query.length) {
    const char = query[at]!;
    if (/\s/.test(char)) {
      at++;
      continue;
    }
    if (char === '(' || char === ')') {
      tokens.push(char);
      at++;
      continue;
    }
    let token = '';
    while (at < query.length && !/[\s()]/.test(query[at]!)) {
      if (query[at] === '"') {
        const end = query.indexOf('"', at + 1);
        if (end < 0) throw new Unreadable('a quote is not closed');
        token += query.slice(at, end + 1);
        at = end + 1;
      } else token += query[at++];
    }
    // `-(` negates a group: keep the sign as its own token.
    if (token === '-' && query[at] === '(') tokens.push('NOT');
    else tokens.push(token);
  }
  return tokens;
}

function scopeOf(token: string): Node {
  const colon = token.indexOf(':');
  if (colon < 0) return { kind: 'term' };
  const key = token.slice(0, colon).toLowerCase();
  if (!SCOPE_KEYS.has(key)) return { kind: 'term' };
  let value = token.slice(colon + 1);
  if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
  if (key === 'repo') {
    if (!isRepositoryName(value)) throw new Unreadable(`"${value}" is not a repository name (owner/name)`);
    return { kind: 'scope', repository: value };
  }
  if (!isAccountName(value)) throw new Unreadable(`"${value}" is not an account name`);
  return { kind: 'scope', repository: `${value}/*` };
}

/** A recursive-descent reader: or := and (OR and)*; and := unary+; unary := (NOT | -) unary | ( or ) | term. */
function parse(tokens: string[]): Node {
  let at = 0;
  const peek = () => tokens[at];
  const isWord = (token: string | undefined, word: string) => token !== undefined && token.toUpperCase() === word;

  const unary = (): Node => {
    const token = tokens[at++];
    if (token === undefined) throw new Unreadable('the query ends where a term was expected');
    if (isWord(token, 'NOT')) return { kind: 'not', node: unary() };
    if (token === '(') {
      const inner = or();
      if (tokens[at++] !== ')') throw new Unreadable('a parenthesis is not closed');
      return inner;
    }
    if (token === ')') throw new Unreadable('a parenthesis closes nothing');
    if (token.startsWith('-') && token.length > 1) return { kind: 'not', node: scopeOf(token.slice(1)) };
    return scopeOf(token);
  };
  const and = (): Node => {
    const nodes: Node[] = [];
    while (at < tokens.length && peek() !== ')' && !isWord(peek(), 'OR')) {
      if (isWord(peek(), 'AND')) {
        at++;
        continue;
      }
      nodes.push(unary());
    }
    if (!nodes.length) throw new Unreadable('an OR or a parenthesis has nothing on one side');
    return { kind: 'and', nodes };
  };
  const or = (): Node => {
    const nodes = [and()];
    while (isWord(peek(), 'OR')) {
      at++;
      nodes.push(and());
    }
    return nodes.length === 1 ? nodes[0]! : { kind: 'or', nodes };
  };

  const tree = or();
  if (at < tokens.length) throw new Unreadable('a parenthesis closes nothing');
  return tree;
}

/** Every scope a node names outside a negation. */
function scopesIn(node: Node): string[] {
  if (node.kind === 'scope') return [node.repository];
  if (node.kind === 'and' || node.kind === 'or') return node.nodes.flatMap(scopesIn);
  return [];
}

function isBounded(node: Node): boolean {
  if (node.kind === 'scope') return true;
  if (node.kind === 'and') return node.nodes.some(isBounded);
  if (node.kind === 'or') return node.nodes.every(isBounded);
  return false;
}

export function searchReach(query: string): SearchReach {
  try {
    const tree = parse(tokenize(query));
    return { repositories: isBounded(tree) ? [...new Set(scopesIn(tree))] : 'any' };
  } catch (error) {
    if (error instanceof Unreadable) return { unreadable: error.message };
    throw error;
  }
}
