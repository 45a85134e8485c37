/**
 * Fitting a long view into Slack without losing what must be seen: lines that must stay are never
 * cut (a line longer than a section continues in the next one), optional lines give way first, and
 * what still does not fit one message continues in more messages.
 */
import { LIMITS, type Block, type MessageView } from './limits.ts';
import { context, section, truncate } from './text.ts';

export interface ViewLine {
  text: string;
  /** Never dropped or shortened (a write's target). */
  keep: boolean;
}

/** Room per section, under Slack's 3000 characters. */
const SECTION_CHARS = 2800;
/** Under LIMITS.messageBlocksChars, with room for the continuation note. */
const MESSAGE_CHARS = LIMITS.messageBlocksChars - 400;

/**
 * Every kept line, and as many of the others (each shortened to 1500 characters) as fit in
 * `optionalChars`, in their order; a note counts the others left out.
 */
export function selectLines(lines: readonly ViewLine[], optionalChars: number, note: (hidden: number) => string): string[] {
  const shown: string[] = [];
  let used = 0;
  let hidden = 0;
  for (const line of lines) {
    if (line.keep) {
      shown.push(line.text);
      continue;
    }
    const clipped = truncate(line.text, 1500);
    if (hidden === 0 && used + clipped.length + 1 <= optionalChars) {
      shown.push(clipped);
      used += clipped.length + 1;
    } else hidden++;
  }
  if (hidden > 0) shown.push(note(hidden));
  return shown;
}

/** Lines into as few sections as hold them; a line longer than a section is split across sections, never cut. */
export function lineSections(lines: readonly string[]): Block[] {
  const chunks: string[] = [];
  let current = '';
  for (const line of lines) {
    for (const piece of splitText(line, SECTION_CHARS)) {
      if (current && current.length + piece.length + 1 > SECTION_CHARS) {
        chunks.push(current);
        current = '';
      }
      current = current ? `${current}\n${piece}` : piece;
    }
  }
  if (current) chunks.push(current);
  return chunks.map((chunk) => section(chunk));
}

/** Pieces of at most `max` characters, never splitting an escape entity (`&amp;`) or a surrogate pair. */
function splitText(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = max;
    const amp = rest.lastIndexOf('&', cut - 1);
    if (amp > 0 && amp > cut - 8 && !rest.slice(amp, cut).includes(';')) cut = amp;
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  pieces.push(rest);
  return pieces;
}

/**
 * `head` opens the first message, `tail` (the buttons) closes the last, so they come after all there
 * is to read; `body` fills messages in order within Slack's block and size limits. Every message
 * after the first opens with `continued(index, count)`.
 */
export function splitIntoMessages(parts: {
  head: Block[];
  body: Block[];
  tail: Block[];
  text: string;
  continued: (index: number, count: number) => string;
}): MessageView[] {
  const size = (blocks: readonly Block[]) => JSON.stringify(blocks).length;
  const messages: Block[][] = [[...parts.head]];
  for (const block of parts.body) {
    const current = messages[messages.length - 1]!;
    if (current.length + 2 > LIMITS.messageBlocks || size([...current, block]) > MESSAGE_CHARS) messages.push([block]);
    else current.push(block);
  }
  const last = messages[messages.length - 1]!;
  if (last.length + parts.tail.length + 1 > LIMITS.messageBlocks || size([...last, ...parts.tail]) > MESSAGE_CHARS) messages.push([...parts.tail]);
  else last.push(...parts.tail);
  const count = messages.length;
  return messages.map((blocks, index) => {
    if (index === 0) return { text: parts.text, blocks };
    const note = parts.continued(index + 1, count);
    return { text: truncate(note, 300), blocks: [context(note), ...blocks] };
  });
}
