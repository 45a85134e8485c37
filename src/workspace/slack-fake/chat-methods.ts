import { checkMessage, checkUpdate } from './block-check.ts';
import { fail, jsonParam, type MethodResult, type Params } from './params.ts';
import type { FakeMessage, WorkspaceModel } from './workspace-model.ts';

type Handler = (params: Params, model: WorkspaceModel, baseUrl: string) => MethodResult;

/** Slack's answer to a block type the workspace does not take, in the shape it sends. */
function refusedBlock(model: WorkspaceModel, blocks: unknown): MethodResult | undefined {
  if (!Array.isArray(blocks)) return undefined;
  const index = blocks.findIndex((block) => model.refusedBlockTypes.has(String((block as { type?: unknown } | null)?.type)));
  if (index === -1) return undefined;
  return fail('invalid_blocks', [`[ERROR] unsupported type: ${String((blocks[index] as { type?: unknown }).type)} [json-pointer:/blocks/${index}/type]`]);
}

function readContent(params: Params, model: WorkspaceModel): { text: string | undefined; blocks: unknown[] | undefined } | MethodResult {
  const blocks = jsonParam(params, 'blocks');
  if (!blocks.ok) return fail('invalid_blocks_format');
  const refused = refusedBlock(model, blocks.value);
  if (refused) return refused;
  const text = params.text;
  if (!text && !blocks.value) return fail('no_text');
  const problem = checkMessage(text, blocks.value);
  if (problem) return fail(problem.error, problem.messages);
  return { text, blocks: blocks.value as unknown[] | undefined };
}

const isFailure = (value: object): value is MethodResult => 'ok' in value;

export const chatMethods: Record<string, Handler> = {
  'chat.postMessage'(params, model) {
    const channel = params.channel;
    if (!channel) return fail('channel_not_found');
    const content = readContent(params, model);
    if (isFailure(content)) return content;
    const metadata = jsonParam(params, 'metadata');
    if (!metadata.ok) return fail('invalid_metadata_format');
    model.channels.add(channel);
    const message: FakeMessage = {
      channel,
      ts: model.nextTs(),
      threadTs: params.thread_ts || undefined,
      user: model.bot.userId,
      text: content.text ?? '',
      blocks: content.blocks,
      metadata: metadata.value as FakeMessage['metadata'],
      edits: 0,
    };
    model.messages.push(message);
    if (message.threadTs) model.threadStatus.delete(`${channel}:${message.threadTs}`);
    return {
      ok: true,
      channel,
      ts: message.ts,
      message: { type: 'message', user: message.user, text: message.text, ts: message.ts, thread_ts: message.threadTs, blocks: message.blocks },
    };
  },

  'chat.update'(params, model) {
    const message = model.findMessage(params.channel ?? '', params.ts ?? '');
    if (!message) return fail('message_not_found');
    if (message.user !== model.bot.userId) return fail('cant_update_message');
    const blocks = jsonParam(params, 'blocks');
    if (!blocks.ok) return fail('invalid_blocks_format');
    const refused = refusedBlock(model, blocks.value);
    if (refused) return refused;
    const problem = checkUpdate(params.text, blocks.value);
    if (problem) return fail(problem.error, problem.messages);
    if (params.text !== undefined) message.text = params.text;
    if (blocks.value !== undefined) message.blocks = blocks.value as unknown[];
    const metadata = jsonParam(params, 'metadata');
    if (metadata.ok && metadata.value !== undefined) message.metadata = metadata.value as FakeMessage['metadata'];
    message.edits += 1;
    return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
  },

  'chat.postEphemeral'(params, model) {
    if (!params.channel) return fail('channel_not_found');
    if (!params.user) return fail('user_not_in_channel');
    const content = readContent(params, model);
    if (isFailure(content)) return content;
    const ts = model.nextTs();
    model.ephemerals.push({
      channel: params.channel,
      user: params.user,
      threadTs: params.thread_ts || undefined,
      text: content.text ?? '',
      blocks: content.blocks,
      ts,
    });
    return { ok: true, message_ts: ts };
  },

  'chat.getPermalink'(params, model, baseUrl) {
    const message = model.findMessage(params.channel ?? '', params.message_ts ?? '');
    if (!message) return fail('message_not_found');
    const origin = baseUrl.replace(/\/api\/$/, '');
    return { ok: true, channel: message.channel, permalink: `${origin}/archives/${message.channel}/p${message.ts.replace('.', '')}` };
  },

  /** A thread, parent first, oldest to newest, with each message's blocks; metadata only when asked for, as Slack does. */
  'conversations.replies'(params, model) {
    const channel = params.channel;
    if (!channel || !model.channels.has(channel)) return fail('channel_not_found');
    const thread = model.thread(channel, params.ts ?? '');
    if (thread.length === 0) return fail('thread_not_found');
    const withMetadata = params.include_all_metadata === 'true';
    const messages = thread.map((m) => ({
      type: 'message',
      user: m.user,
      text: m.text,
      ...(m.blocks ? { blocks: m.blocks } : {}),
      ts: m.ts,
      ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
      ...(withMetadata && m.metadata ? { metadata: m.metadata } : {}),
    }));
    return { ok: true, messages, has_more: false };
  },

  'conversations.history'(params, model) {
    const channel = params.channel;
    if (!channel || !model.channels.has(channel)) return fail('channel_not_found');
    const oldest = Number(params.oldest ?? 0);
    const latest = params.latest ? Number(params.latest) : Infinity;
    const limit = Math.min(Number(params.limit ?? 100) || 100, 1000);
    const withMetadata = params.include_all_metadata === 'true';
    const messages = model.messages
      .filter((m) => m.channel === channel && !m.threadTs && Number(m.ts) > oldest && Number(m.ts) < latest)
      .reverse()
      .slice(0, limit)
      .map((m) => ({
        type: 'message',
        user: m.user,
        text: m.text,
        ...(m.blocks ? { blocks: m.blocks } : {}),
        ts: m.ts,
        ...(withMetadata && m.metadata ? { metadata: m.metadata } : {}),
      }));
    return { ok: true, messages, has_more: false };
  },
};
