/**
 * A model's answer (llm_task, agent_task) longer than the summary shows follows the summary in the thread,
 * whole, in as many messages as it takes (within a bound). They are posted with the summary, as part of
 * what the run owes its thread: everyone in the thread reads the rest without a click, and a restart
 * delivers them once, like the summary (each under its own key). "Whole" is the answer as stored: a step's
 * stored output keeps 4,000 characters of a string and says how many it cut (agent/text/output-limit.ts).
 */
import type { StepResult } from '../../../agent/model/step-results.ts';
import type { MessageBlock, MessageView } from '../limits.ts';
import { context, escapeText, section, truncate } from '../text.ts';

/** Characters of a model's answer the summary itself shows. */
export const ANSWER_CHARS = 1400;
/** Escaped characters per section, under Slack's 3,000. */
const SECTION_CHARS = 2900;
/** Sections per message: three of 2,900 stay under the 12,000 characters of a message's blocks. */
const SECTIONS_PER_MESSAGE = 3;
/** Messages at most for all the answers of one run (about 100,000 characters of answers). */
export const MAX_ANSWER_MESSAGES = 12;

/** A model's answer the summary cuts (counted as Slack gets it, escaped): the rest follows in the thread. */
export function continuesBelow(result: StepResult): boolean {
  return result.kind === 'answer' && result.title !== undefined && escapeText(result.text).length > ANSWER_CHARS;
}

/** The messages after the summary: each cut answer in full, titled by its step, numbered in its parts. */
export function answerMessages(results: readonly StepResult[]): MessageView[] {
  const messages: MessageView[] = [];
  for (const result of results.filter(continuesBelow)) {
    const groups = chunk(pieces(result.text), SECTIONS_PER_MESSAGE);
    const title = truncate(result.title ?? '', 150);
    groups.forEach((sections, index) => {
      const part = groups.length > 1 ? ` (${index + 1}/${groups.length})` : '';
      const blocks: MessageBlock[] = [context(`*${escapeText(title)}*: the whole answer${part}`), ...sections.map((text) => section(text))];
      messages.push({ text: truncate(`The whole answer of “${title}”${part}`, 300), blocks });
    });
  }
  if (messages.length <= MAX_ANSWER_MESSAGES) return messages;
  const kept = messages.slice(0, MAX_ANSWER_MESSAGES);
  const last = kept.at(-1)!;
  kept[kept.length - 1] = {
    ...last,
    blocks: [...last.blocks, context('_The answers go on beyond what the thread can hold; the rest is in the run’s record (`tandem show`)._')],
  };
  return kept;
}

/** The text cut into escaped pieces of at most SECTION_CHARS, at a line break or a space where one is near the end. */
function pieces(raw: string): string[] {
  const out: string[] = [];
  let rest = raw;
  while (rest.length > 0) {
    let end = fitting(rest);
    if (end < rest.length) {
      const window = rest.slice(0, end);
      const lineBreak = window.lastIndexOf('\n');
      const space = window.lastIndexOf(' ');
      if (lineBreak > end / 2) end = lineBreak + 1;
      else if (space > end / 2) end = space + 1;
      // Never between the two halves of a character outside the basic plane.
      else if (/[\uD800-\uDBFF]/.test(rest.charAt(end - 1))) end -= 1;
    }
    const piece = rest.slice(0, end);
    if (piece.trim() !== '') out.push(escapeText(piece));
    rest = rest.slice(end);
  }
  return out;
}

/** How many characters of `raw` fit one section once escaped. */
function fitting(raw: string): number {
  let used = 0;
  for (let index = 0; index < raw.length; index += 1) {
    const char = raw.charAt(index);
    used += char === '&' ? 5 : char === '<' || char === '>' ? 4 : 1;
    if (used > SECTION_CHARS) return index;
  }
  return raw.length;
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let index = 0; index < items.length; index += size) out.push(items.slice(index, index + size));
  return out;
}
