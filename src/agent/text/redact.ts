/**
 * The one redaction path: everything that leaves a tool, a person or the config for a log, the
 * database, Slack or a model prompt passes through here. Every pass is linear in the text's length,
 * because the text may be a stranger's (a 300 MB HTTP body, an MCP server's answer).
 */

/**
 * Token-shaped strings we never let reach a log, the database or a model, whether or not they are
 * our own configured secrets (a person may paste someone else's token into a task). Each starts with
 * a literal and consumes what it matched, so a failed attempt costs only the run of token characters.
 */
const TOKEN_PATTERNS: RegExp[] = [
  /xox[abposr]-[A-Za-z0-9-]{8,}/g, // Slack bot/user/app tokens
  /xapp-[A-Za-z0-9-]{8,}/g,
  /gh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub classic tokens
  /github_pat_[A-Za-z0-9_]{20,}/g,
  /sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, // OpenAI / Anthropic keys
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
];

const PEM_BEGIN = /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----/g;
const PEM_END = /-----END [A-Z ]{0,40}PRIVATE KEY-----/g;

export const REDACTED = '[redacted]';

/** Longer than any token pattern needs to be recognised; see redactAndCut. */
const CUT_MARGIN = 1_024;

export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = redactSecrets(text, secrets);
  for (const pattern of TOKEN_PATTERNS) out = out.replace(pattern, REDACTED);
  return redactPrivateKeys(out);
}

/**
 * Redacts, then cuts to `max` characters, without ever reading more than `max` plus a margin: a
 * secret or token that starts before the cut is still seen whole, and what lies past the window
 * would be cut anyway. `note` says how much was cut.
 */
export function redactAndCut(text: string, secrets: readonly string[], max: number, note = (cut: number) => `… [${cut} more characters cut]`): string {
  const margin = Math.max(CUT_MARGIN, ...secrets.map((secret) => secret.length * 6 + 2));
  const window = text.length > max + margin ? text.slice(0, max + margin) : text;
  const redacted = redactText(window, secrets);
  if (redacted.length <= max && window.length === text.length) return redacted;
  const kept = redacted.slice(0, max);
  return `${kept}${note(text.length - window.length + redacted.length - kept.length)}`;
}

/** Redacts every string inside a JSON-like value; keys stay as they are. */
export function redactValue<T>(value: T, secrets: readonly string[] = []): T {
  if (typeof value === 'string') return redactText(value, secrets) as T;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets)) as T;
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, secrets)])) as T;
  }
  return value;
}

/**
 * Every occurrence of every secret, also as it looks inside a JSON string (a secret holding `"` or
 * `\` is escaped there), found in the original text and replaced in one pass, so one secret's
 * replacement never hides half of an overlapping one.
 */
function redactSecrets(text: string, secrets: readonly string[]): string {
  const forms = secretForms(secrets);
  if (!forms.length) return text;
  const spans: [number, number][] = [];
  for (const form of forms) {
    for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) spans.push([at, at + form.length]);
  }
  if (!spans.length) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let done = 0;
  let end = -1;
  for (const [start, stop] of spans) {
    if (start > end) {
      if (end >= 0) out += REDACTED;
      out += text.slice(done, start);
    }
    end = Math.max(end, stop);
    done = end;
  }
  return `${out}${REDACTED}${text.slice(done)}`;
}

function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    forms.add(secret);
    const escaped = JSON.stringify(secret).slice(1, -1);
    forms.add(escaped);
    // A value logged or stored twice over (JSON inside JSON) doubles its escapes.
    forms.add(JSON.stringify(escaped).slice(1, -1));
  }
  return [...forms];
}

/**
 * A private key block, from its BEGIN line to its END line; a block with no END (cut short) is
 * redacted to the end of the text. One forward scan: once an END is missing after one BEGIN, it is
 * missing after every later one too.
 */
function redactPrivateKeys(text: string): string {
  if (!text.includes('PRIVATE KEY-----')) return text;
  let out = '';
  let from = 0;
  PEM_BEGIN.lastIndex = 0;
  for (let begin = PEM_BEGIN.exec(text); begin; begin = PEM_BEGIN.exec(text)) {
    PEM_END.lastIndex = PEM_BEGIN.lastIndex;
    const end = PEM_END.exec(text);
    out += text.slice(from, begin.index) + REDACTED;
    if (!end) return out;
    from = PEM_END.lastIndex;
    PEM_BEGIN.lastIndex = from;
  }
  return out + text.slice(from);
}
