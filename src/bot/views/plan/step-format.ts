import type { Risk } from '../../../agent/ports/tool.ts';
import { escapeText, truncate } from '../text.ts';

/** A step's risk as a mark a reader spots. */
export const RISK_BADGE: Record<Risk, string> = {
  read: ':mag: read',
  write: ':pencil2: write',
  destructive: ':warning: *destructive*',
};

/** How a target arg reads before its value; `repo` and `number` join as `owner/name#7`, `channel` needs no word. */
const TARGET_WORDS: Record<string, string> = { tag: 'tag', ref: 'ref', workflow: 'workflow', url: '', channel: '', query: '' };

const READ_TARGETS = new Set(['repo', 'number', 'url', 'query', 'tag', 'ref', 'workflow', 'channel', 'runId']);

/**
 * What a step acts on, in bold: `*acme/api#7*`, `*acme/api* tag *v1.2*`. A write's targets are in full,
 * however long (the approver must see exactly what changes); a read's are shortened. `targets`
 * undefined: nothing says which args pick the object, so every arg counts as one. Other arguments
 * are not here: the full view (View full plan) shows every one exactly as it will be sent.
 */
export function stepTarget(args: Record<string, unknown>, targets: readonly string[] | undefined, risk: Risk): string {
  const full = risk !== 'read';
  // A read with nothing said about its targets shows the args that usually name what it reads.
  const named = targets ?? (full ? Object.keys(args) : Object.keys(args).filter((name) => READ_TARGETS.has(name)));
  const names = named.filter((name) => args[name] !== undefined && args[name] !== '');
  const value = (name: string) => {
    const text = renderValue(args[name]);
    return escapeText(full ? text : truncate(text, 60));
  };
  const parts: string[] = [];
  const joined = names.includes('repo') && names.includes('number');
  for (const name of names) {
    if (joined && name === 'number') continue;
    if (joined && name === 'repo') {
      parts.push(bold(`${value('repo')}#${value('number')}`));
      continue;
    }
    const word = name in TARGET_WORDS ? TARGET_WORDS[name] : name === 'repo' ? '' : name;
    parts.push(`${word ? `${escapeText(word)} ` : ''}${bold(value(name))}`);
  }
  return parts.join(' ');
}

/** Bold in mrkdwn; Slack draws no bold around leading or trailing spaces, so those stay outside. */
function bold(text: string): string {
  const match = /^(\s*)(.*?)(\s*)$/s.exec(text);
  const [, before = '', inner = '', after = ''] = match ?? [];
  return inner ? `${before}*${inner}*${after}` : text;
}

/**
 * A step as a sentence: its title, with what it acts on in bold (inside the title when the title
 * names it, after it otherwise): "Comment on *acme/api#7*, linking the new issue".
 */
export function stepSentence(title: string, target: string, maxTitle = 160): string {
  const words = escapeText(truncate(title.trim(), maxTitle));
  if (!target) return words;
  const plain = target.replace(/\*/g, '');
  const named = plain && !plain.includes(' ') ? wholeName(plain).exec(words) : null;
  if (named) return `${words.slice(0, named.index)}*${plain}*${words.slice(named.index + plain.length)}`;
  return `${words} — ${target}`;
}

/**
 * The target as a whole name in a title: "Merge acme/api#77" does not name acme/api#7, nor "Release v1.2.10"
 * v1.2 — bolding the prefix would show a target the step does not act on. A full stop ending the sentence is
 * not part of the name ("Comment on acme/api#7.").
 */
function wholeName(target: string): RegExp {
  const escaped = target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w./#@-])${escaped}(?![\\w/#@-]|\\.\\w)`);
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value) ?? String(value);
}

/** What a step waits for besides earlier steps, for tools whose whole point is waiting. */
export function waitsFor(tool: string, args: Record<string, unknown>): string | undefined {
  if (tool === 'ask_human') return 'waits for an answer in this thread';
  if (tool === 'wait' && typeof args.seconds === 'number') return `waits ${waitLength(args.seconds)}`;
  if (tool === 'github_dispatch_workflow' && args.wait !== false) return 'waits for the workflow run to finish';
  return undefined;
}

function waitLength(seconds: number): string {
  if (seconds < 120) return `${seconds} seconds`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} minutes`;
  return `${Math.round(seconds / 3600)} hours`;
}
