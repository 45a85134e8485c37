/**
 * The approval stamped on what Tandem writes to GitHub (TANDEM_ATTRIBUTION): a closing line in issue,
 * comment and release bodies, and trailers in a merge commit's message. The names in it are data: each
 * is shown in a code span (no `@` mention, no link, no formatting can come of it), and the thread's
 * address is used only as an https URL with the characters that could end a Markdown link encoded.
 */
import type { Attribution } from '../../agent/ports/tool.ts';

const SHORT = 12;

/** A name as Markdown shows it literally: one line, in a code span, backticks dropped. */
function inert(name: string): string {
  const clean = name.replace(/[`\r\n]/g, '').trim() || '?';
  return `\`${clean}\``;
}

/** A web address (Slack's permalinks are https; a test's fake Slack answers on http) fit for a Markdown link, or undefined. */
function safeUrl(url: string | null): string | undefined {
  if (!url || !/^https?:\/\/[^\s]+$/i.test(url)) return undefined;
  return url.replace(/[()<>[\]`"']/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

function threadRef(attribution: Attribution): string {
  const url = safeUrl(attribution.threadUrl);
  return url ? `[Slack thread](${url})` : `Slack thread ${inert(`${attribution.conversation.channel} ${attribution.conversation.threadTs}`)}`;
}

/** The one line a body ends with. */
export function attributionLine(attribution: Attribution): string {
  const approvers = attribution.approvers.length > 0 ? attribution.approvers.map(inert).join(', ') : 'nobody recorded';
  return `Requested by ${inert(attribution.requester)} in Slack, approved by ${approvers} · Tandem plan v${attribution.planVersion}, digest ${inert(attribution.digest.slice(0, SHORT))} · ${threadRef(attribution)}`;
}

/** The body with the attribution line after it (a blank line between); unchanged when there is none. */
export function withAttribution(body: string, attribution: Attribution | undefined): string;
export function withAttribution(body: string | undefined, attribution: Attribution | undefined): string | undefined;
export function withAttribution(body: string | undefined, attribution: Attribution | undefined): string | undefined {
  if (!attribution) return body;
  const line = attributionLine(attribution);
  return body ? `${body}\n\n${line}` : line;
}

/** A trailer's value: one line, no `@` (a commit message shown on GitHub links mentions). */
function trailerValue(text: string): string {
  return text.replace(/[\r\n@]/g, ' ').trim() || '?';
}

/** The merge commit's message: a summary line and `Requested-by:` / `Approved-by:` trailers (git's trailer block). */
export function mergeCommitMessage(attribution: Attribution): string {
  const thread = safeUrl(attribution.threadUrl) ?? `${attribution.conversation.channel} ${attribution.conversation.threadTs}`;
  const trailers = [
    `Requested-by: ${trailerValue(attribution.requester)} (Slack)`,
    ...attribution.approvers.map((approver) => `Approved-by: ${trailerValue(approver)} (Slack)`),
    `Tandem-Plan: v${attribution.planVersion} ${attribution.digest.slice(0, SHORT)}`,
    `Tandem-Thread: ${trailerValue(thread)}`,
  ];
  return `Merged by Tandem, plan v${attribution.planVersion} (digest ${attribution.digest.slice(0, SHORT)}).\n\n${trailers.join('\n')}`;
}
