import { HomeViewSchema, LIMITS, MessageBlocksSchema, ModalViewSchema } from '../../bot/views/limits.ts';

export type SlackError = { error: string; messages?: string[] };

/** Checks a message as Slack does: text length, block count and shape, total size. */
export function checkMessage(text: string | undefined, blocks: unknown): SlackError | undefined {
  if (text !== undefined && text.length > 40_000) return { error: 'msg_too_long' };
  if (blocks === undefined) return undefined;
  if (!Array.isArray(blocks)) return { error: 'invalid_blocks_format' };
  if (JSON.stringify(blocks).length > 13_000) return { error: 'msg_blocks_too_long' };
  const parsed = MessageBlocksSchema.safeParse(blocks);
  if (!parsed.success)
    return { error: 'invalid_blocks', messages: parsed.error.issues.map((i) => `[ERROR] ${i.message} [json-pointer:/blocks/${i.path.join('/')}]`) };
  return undefined;
}

/** chat.update also refuses fallback text over 4000 characters. */
export function checkUpdate(text: string | undefined, blocks: unknown): SlackError | undefined {
  if (text !== undefined && text.length > LIMITS.messageText) return { error: 'msg_too_long' };
  return checkMessage(text, blocks);
}

export function checkView(view: unknown): SlackError | undefined {
  if (!view || typeof view !== 'object') return { error: 'invalid_arguments', messages: ['[ERROR] missing required field: view'] };
  if (JSON.stringify(view).length > 250_000) return { error: 'invalid_arguments', messages: ['[ERROR] view is too large'] };
  const type = (view as { type?: unknown }).type;
  const schema = type === 'home' ? HomeViewSchema : ModalViewSchema;
  const parsed = schema.safeParse(view);
  if (!parsed.success)
    return { error: 'invalid_arguments', messages: parsed.error.issues.map((i) => `[ERROR] ${i.message} [json-pointer:/view/${i.path.join('/')}]`) };
  return undefined;
}
