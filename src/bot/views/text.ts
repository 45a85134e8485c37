import { type Setting, SETTING_ROLES, spell, type Text, type TextPart } from '../../agent/text/text.ts';
import { escapeKeepingMentions, escapeText } from '../../integrations/slack/slack-text.ts';
import type { Block } from './limits.ts';

export { escapeKeepingMentions, escapeText } from '../../integrations/slack/slack-text.ts';

/** Cuts to `max` characters with an ellipsis, never splitting an escape entity. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - 1));
  const amp = cut.lastIndexOf('&');
  if (amp !== -1 && !cut.slice(amp).includes(';')) cut = cut.slice(0, amp);
  return `${cut}…`;
}

/** A link in mrkdwn; the label is escaped, the URL only loses characters that would break the syntax. */
export function link(url: string, label: string): string {
  return `<${url.replace(/[<>|\s]/g, '')}|${escapeText(label).replace(/\|/g, '¦')}>`;
}

export function mention(id: string): string {
  return id.startsWith('S') ? `<!subteam^${id}>` : `<@${id}>`;
}

/**
 * A setting the agent names, in the words a person in the thread understands. The environment variable
 * is for whoever runs Tandem (the CLI and the logs name it); the thread is read by everyone else.
 */
const SETTING_WORDS: Record<Setting, string> = {
  ...SETTING_ROLES,
  approvers: 'the approvers',
  // The one message that names them is the how-to for a bot with no model, read by whoever set it up: it
  // says which variables to set (CONTRACT §1).
  'planner-model': 'PLANNER_MODEL',
  'model-key': 'OPENAI_API_KEY (or ANTHROPIC_API_KEY)',
};

function name(part: Exclude<TextPart, string>): string {
  return 'user' in part ? mention(escapeText(part.user)) : SETTING_WORDS[part.setting];
}

/**
 * A setting in parentheses ("Only approvers (TANDEM_APPROVERS) may…") points an operator at the
 * configuration; in the thread it says nothing the sentence does not, so it is left out with its
 * parentheses. A setting that is part of the sentence is named in words.
 */
function withoutSettingAsides(parts: readonly TextPart[]): TextPart[] {
  const out: TextPart[] = [];
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index]!;
    const before = out[out.length - 1];
    const after = parts[index + 1];
    if (
      typeof part === 'object' &&
      'setting' in part &&
      typeof before === 'string' &&
      /\s*\($/.test(before) &&
      typeof after === 'string' &&
      after.startsWith(')')
    ) {
      out[out.length - 1] = before.replace(/\s*\($/, '');
      out.push(after.slice(1));
      index++;
      continue;
    }
    out.push(part);
  }
  return out;
}

/**
 * An agent message as mrkdwn: its words escaped, its people as mentions, its settings by their variable.
 * A message that is one string (the bot's own sentences, prose stored before people were data) keeps the
 * mentions written into it and nothing else becomes markup.
 */
export function mrkdwn(text: Text): string {
  if (typeof text === 'string') return escapeKeepingMentions(text);
  return withoutSettingAsides(text)
    .map((part) => (typeof part === 'string' ? escapeText(part) : name(part)))
    .join('');
}

/**
 * Words the agent stored (why a version exists, how a run ended, what happened) as mrkdwn, the words
 * cut to `max` characters. Unlike a message, a stored string may quote a tool's output, so all of it is
 * escaped: only the parts that name people become mentions, and a cut never splits one.
 */
export function storedWords(text: Text, max: number): string {
  let left = max;
  let out = '';
  for (const part of typeof text === 'string' ? [text] : withoutSettingAsides(text)) {
    if (left <= 0) return `${out}…`;
    if (typeof part !== 'string') {
      out += name(part);
      left -= 1;
    } else if (part.length > left) {
      return `${out}${escapeText(part.slice(0, Math.max(0, left - 1)))}…`;
    } else {
      out += escapeText(part);
      left -= part.length;
    }
  }
  return out;
}

/** An agent message for a plain_text field (a modal's field error), where Slack draws no mentions. */
export function plainWords(text: Text): string {
  return spell(typeof text === 'string' ? text : withoutSettingAsides(text), (part) => ('user' in part ? `<@${part.user}>` : SETTING_WORDS[part.setting]));
}

export function section(text: string, blockId?: string): Block {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, 3000) }, ...(blockId ? { block_id: blockId } : {}) };
}

export function header(text: string): Block {
  return { type: 'header', text: { type: 'plain_text', text: truncate(text, 150), emoji: true } };
}

export function context(text: string): Block {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: truncate(text, 2000) }] };
}

export function plainText(text: string, max: number): { type: 'plain_text'; text: string } {
  return { type: 'plain_text', text: truncate(text, max) };
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

/**
 * Packs lines into as few sections as fit Slack's 3000-character limit, within a block count and a
 * character budget (the whole message must stay under ~13k). Lines that do not fit are counted in a note.
 */
export function packLines(lines: string[], budget: { maxBlocks: number; maxChars: number }, overflowNote: (hidden: number) => string): Block[] {
  const chunks: string[] = [];
  let current = '';
  let used = 0;
  let chars = 0;
  const reserve = 120; // room for the overflow note
  for (const line of lines) {
    const clipped = truncate(line, 1500);
    if (chars + clipped.length + 1 > budget.maxChars - reserve) break;
    if (current && current.length + clipped.length + 1 > 2800) {
      if (chunks.length + 1 >= budget.maxBlocks) break;
      chunks.push(current);
      current = '';
    }
    current = current ? `${current}\n${clipped}` : clipped;
    chars += clipped.length + 1;
    used += 1;
  }
  if (current) chunks.push(current);
  const hidden = lines.length - used;
  if (hidden > 0) {
    const note = overflowNote(hidden);
    const last = chunks.pop();
    chunks.push(last ? `${last}\n${note}` : note);
  }
  return chunks.map((chunk) => section(chunk));
}
