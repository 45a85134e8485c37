/**
 * What a GitHub issue search can reach, read conservatively enough to hold an allow-list (decision 026).
 *
 * The whole query is read: plain-space separated terms, `key:value` qualifiers (`key:"quoted value"`
 * too), quoted phrases, `-` and `NOT` negation, `AND` / `OR`, and parentheses up to GitHub's five levels.
 * Anything this reader is not sure GitHub reads the same way is a problem, never a guess: another kind of
 * space or an invisible character, a quote inside a word, `\"`, a `%XX` escape, a dangling operator,
 * unbalanced or empty parentheses.
 *
 * Two rules decide the reach:
 * - Every repository or account the text names is listed: each `repo:`, `org:`, `user:` (and the
 *   look-alikes `owner:`, `organization:`, `repository:`) anywhere, in any case, negated or not, inside
 *   parentheses or quoted phrases — a phrase is free text to GitHub, but a name there costs nothing to
 *   judge and guards against a reader that disagrees. A name GitHub would not accept is a problem.
 * - The query is bounded only when every `OR` branch of its top level holds a plain `repo:`, `org:` or
 *   `user:` qualifier (lower case, unquoted value, not negated, after no `NOT`). Qualifiers inside
 *   parentheses never bound: how GitHub joins them with the rest differs between its search versions.
 *   An unbounded query reaches every repository (`'any'`).
 * The text is read as written and in its NFKC form (full-width letters fold to ASCII); both must pass.
 */
import { isRepository, isRepositoryOwner } from '../../agent/model/repository-name.ts';

export type SearchReach =
  | { ok: true; repositories: readonly string[] | 'any' }
  /** The query is not understood well enough to judge; `problem` says what to change. */
  | { ok: false; problem: string };

/** GitHub refuses more nesting than this; so does this reader. */
const MAX_DEPTH = 5;
const SCOPE_KEYS = new Set(['repo', 'org', 'user']);
/** Every key that names a repository or an account, in any case, wherever it stands. */
const NAMING = /(?<![\p{L}\p{N}_])(repo|repository|org|organization|user|owner)\s*:\s*"?([^\s"()]*)/giu;
/** Only U+0020 separates terms: a tab or another space GitHub might or might not split on is refused. */
const ODD_CHARACTER = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{White_Space}/u;

interface Token {
  kind: 'open' | 'close' | 'term';
  raw: string;
  negated: boolean;
  /** The qualifier's key as written, when the term is `key:value`. */
  key?: string;
  quotedValue?: boolean;
  phrase?: boolean;
}

export function searchQueryReach(query: string): SearchReach {
  const texts = [...new Set([query, query.normalize('NFKC')])];
  const named = new Set<string>();
  let bounded = true;
  for (const text of texts) {
    const read = readOnce(text);
    if (!read.ok) return read;
    read.named.forEach((name) => named.add(name));
    bounded &&= read.bounded;
  }
  return { ok: true, repositories: bounded ? [...named] : 'any' };
}

type Reading = { ok: true; named: string[]; bounded: boolean } | { ok: false; problem: string };

function readOnce(text: string): Reading {
  if (ODD_CHARACTER.test(text)) return fail('it holds a character other than a plain space between words (a tab, a line break, an invisible or unusual space)');
  if (/%[0-9A-Fa-f]{2}/.test(text)) return fail('it holds a %-escape; write the characters themselves');
  const names = namedScopes(text);
  if (!names.ok) return names;
  const tokens = tokenize(text);
  if (!tokens.ok) return tokens;
  const grammar = grammarProblem(tokens.value);
  if (grammar) return fail(grammar);
  return { ok: true, named: names.value, bounded: isBounded(tokens.value) };
}

function fail(problem: string): { ok: false; problem: string } {
  return { ok: false, problem };
}

function namedScopes(text: string): { ok: true; value: string[] } | { ok: false; problem: string } {
  const named: string[] = [];
  for (const match of text.matchAll(NAMING)) {
    const key = match[1]!.toLowerCase();
    const value = match[2]!;
    if (key === 'repo' || key === 'repository') {
      if (!isRepository(value)) return fail(`${match[0].trim()} does not name a repository as GitHub spells it (owner/name)`);
      named.push(value);
    } else {
      if (!isRepositoryOwner(value)) return fail(`${match[0].trim()} does not name an account as GitHub spells it`);
      named.push(`${value}/*`);
    }
  }
  return { ok: true, value: named };
}

function tokenize(text: string): { ok: true; value: Token[] } | { ok: false; problem: string } {
  const tokens: Token[] = [];
  let at = 0;
  const endOfTerm = (index: number) => index >= text.length || text[index] === ' ' || text[index] === ')';
  const quoted = (start: number): number | string => {
    const close = text.indexOf('"', start + 1);
    if (close === -1) return 'a quote is never closed';
    if (text.slice(start + 1, close).includes('\\')) return 'a backslash inside quotes is not read the same way everywhere';
    if (!endOfTerm(close + 1)) return 'a closing quote must end its term (put a space after it)';
    return close + 1;
  };
  while (at < text.length) {
    const char = text[at]!;
    if (char === ' ') {
      at += 1;
      continue;
    }
    if (char === '(' || char === ')') {
      tokens.push({ kind: char === '(' ? 'open' : 'close', raw: char, negated: false });
      at += 1;
      continue;
    }
    const negated = char === '-';
    const start = negated ? at + 1 : at;
    const next = text[start];
    if (negated && (next === undefined || next === ' ' || next === '-' || next === ')')) return fail('a "-" must stand right before what it excludes');
    if (next === '(') {
      tokens.push({ kind: 'open', raw: '-(', negated: true });
      at = start + 1;
      continue;
    }
    if (next === '"') {
      const end = quoted(start);
      if (typeof end === 'string') return fail(end);
      tokens.push({ kind: 'term', raw: text.slice(at, end), negated, phrase: true });
      at = end;
      continue;
    }
    let end = start;
    while (end < text.length && !' ()"'.includes(text[end]!)) end += 1;
    const word = text.slice(start, end);
    const colon = word.indexOf(':');
    const key = colon > 0 ? word.slice(0, colon) : undefined;
    if (text[end] === '"') {
      if (colon !== word.length - 1) return fail('a quote inside a word; quote a whole phrase or a whole qualifier value (key:"value")');
      const close = quoted(end);
      if (typeof close === 'string') return fail(close);
      end = close;
    }
    tokens.push({ kind: 'term', raw: text.slice(at, end), negated, ...(key ? { key, quotedValue: text[start + word.length] === '"' } : {}) });
    at = end;
  }
  return { ok: true, value: tokens };
}

/** `AND`, `OR`, `NOT` as GitHub writes them (upper case); `soft` also takes them in any case. */
function keyword(token: Token | undefined, soft = false): 'AND' | 'OR' | 'NOT' | undefined {
  if (token?.kind !== 'term' || token.negated || token.key !== undefined || token.phrase) return undefined;
  const word = soft ? token.raw.toUpperCase() : token.raw;
  return word === 'AND' || word === 'OR' || word === 'NOT' ? word : undefined;
}

/** A dangling or doubled operator, unbalanced, empty or too deep parentheses, or an empty qualifier value. */
function grammarProblem(tokens: readonly Token[]): string | null {
  let depth = 0;
  for (const [index, token] of tokens.entries()) {
    const before = tokens[index - 1];
    const after = tokens[index + 1];
    const operandEnds = before !== undefined && before.kind !== 'open' && !keyword(before);
    const operandStarts = after !== undefined && after.kind !== 'close' && (!keyword(after) || keyword(after) === 'NOT');
    const word = keyword(token);
    if (word === 'AND' || word === 'OR') {
      if (!operandEnds || !operandStarts) return `${word} needs a term on each side`;
    } else if (word === 'NOT') {
      if (!operandStarts) return 'NOT needs a term after it';
    } else if (token.kind === 'open') {
      depth += 1;
      if (depth > MAX_DEPTH) return `parentheses nest deeper than GitHub's ${MAX_DEPTH} levels`;
      if (after?.kind === 'close') return 'empty parentheses';
    } else if (token.kind === 'close') {
      depth -= 1;
      if (depth < 0) return 'a ")" closes nothing';
    } else if (token.key && SCOPE_KEYS.has(token.key.toLowerCase()) && token.raw.endsWith(':')) {
      return `${token.raw} names nothing`;
    }
  }
  return depth === 0 ? null : 'a "(" is never closed';
}

/** Each top-level OR branch holds a plain scope qualifier, and no NOT came before it. */
function isBounded(tokens: readonly Token[]): boolean {
  let depth = 0;
  let negatedSoFar = false;
  let branchBounded = false;
  for (const token of tokens) {
    if (token.kind === 'open') depth += 1;
    else if (token.kind === 'close') depth -= 1;
    else if (depth === 0) {
      const word = keyword(token, true);
      if (word === 'OR') {
        if (!branchBounded) return false;
        branchBounded = false;
      } else if (word === 'NOT') negatedSoFar = true;
      else if (!token.negated && !negatedSoFar && !token.quotedValue && token.key && SCOPE_KEYS.has(token.key)) branchBounded = true;
    }
  }
  return branchBounded;
}
