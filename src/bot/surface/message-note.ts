import { parse, stringify } from 'node:querystring';
import type { webApi } from '@slack/bolt';

/** The block the note is drawn in, found again by its id so a message updated from its own blocks keeps one note. */
export const NOTE_BLOCK_ID = 'tandem-message-note';

/** Web API methods that post or rewrite a message a person reads. */
const MESSAGE_METHODS = new Set(['chat.postMessage', 'chat.postEphemeral', 'chat.update', 'chat.scheduleMessage']);
/** Slack refuses a message of more than 50 blocks: a full one carries the note in its text instead. */
const MAX_BLOCKS = 50;

interface MessageFields {
  text?: unknown;
  blocks?: unknown;
}

/**
 * Adds one line to every message the bot posts (the demo's "Demo — nothing leaves this machine"), at
 * the Web API's edge so no view has to know: a context block at the end of a message with blocks, or a
 * line after the text of a text-only one. It covers every client of the process (the surface's, Bolt's
 * listeners', the schedules') and `respond()` to a slash command, which all share this fetch.
 */
export function withMessageNote(note: string, inner: webApi.FetchFunction = globalThis.fetch): webApi.FetchFunction {
  return async (url, init) => {
    if (typeof init?.body !== 'string') return inner(url, init);
    if (isJson(init.headers)) return inner(url, { ...init, body: notedJson(init.body, note) });
    if (!MESSAGE_METHODS.has(methodOf(url))) return inner(url, init);
    const fields = parse(init.body);
    return inner(url, { ...init, body: stringify({ ...fields, ...(noted(fields, note, 'form') as Record<string, string>) }) });
  };
}

/** The message's text and blocks with the note added once (as form fields, blocks are JSON text). */
export function noted(message: MessageFields, note: string, encoding: 'form' | 'json'): MessageFields {
  const blocks = encoding === 'form' ? parseBlocks(message.blocks) : Array.isArray(message.blocks) ? (message.blocks as unknown[]) : undefined;
  const others = blocks?.filter((block) => (block as { block_id?: unknown } | null)?.block_id !== NOTE_BLOCK_ID);
  if (others && others.length > 0 && others.length < MAX_BLOCKS) {
    const withNote = [...others, { type: 'context', block_id: NOTE_BLOCK_ID, elements: [{ type: 'mrkdwn', text: note }] }];
    return { blocks: encoding === 'form' ? JSON.stringify(withNote) : withNote };
  }
  if (typeof message.text !== 'string' || message.text.endsWith(`_${note}_`)) return {};
  return { text: message.text ? `${message.text}\n_${note}_` : `_${note}_` };
}

function notedJson(body: string, note: string): string {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return body;
  }
  if (!message || typeof message !== 'object' || !('text' in message || 'blocks' in message)) return body;
  return JSON.stringify({ ...message, ...noted(message as MessageFields, note, 'json') });
}

function parseBlocks(value: unknown): unknown[] | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const blocks: unknown = JSON.parse(value);
    return Array.isArray(blocks) ? blocks : undefined;
  } catch {
    return undefined;
  }
}

function isJson(headers: unknown): boolean {
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries((headers ?? {}) as Record<string, unknown>);
  return entries.some(([name, value]) => name.toLowerCase() === 'content-type' && String(value).startsWith('application/json'));
}

function methodOf(url: string | URL): string {
  try {
    return new URL(url).pathname.split('/').pop() ?? '';
  } catch {
    return '';
  }
}
