import type { FakeEphemeral, FakeMessage, WorkspaceModel } from '../slack-fake/workspace-model.ts';
import { BOT_NAME, LOCAL_CHANNEL, LOCAL_USER } from './local-identity.ts';
import type { OpenModal } from './modal-session.ts';

export interface PageMessage {
  ts: string;
  threadTs: string | null;
  user: string;
  userName: string;
  isBot: boolean;
  text: string;
  blocks: unknown[] | null;
  edited: boolean;
}

export interface PageEphemeral {
  ts: string;
  threadTs: string | null;
  text: string;
  blocks: unknown[] | null;
}

/** Everything the page draws, in one JSON document; the page re-reads it on every change. */
export interface PageState {
  /** The bot's own health URL, the one address `http_check` may reach in local mode; null until the bot is connected. */
  healthUrl: string | null;
  connected: boolean;
  /** The last problem reaching the bot, in words for the person; null when the last delivery worked. */
  notice: string | null;
  channel: { id: string; name: string };
  me: { id: string; name: string };
  bot: { id: string; name: string };
  users: Record<string, string>;
  /** Channel messages (not replies), oldest first, each with its replies. */
  messages: (PageMessage & { replies: PageMessage[] })[];
  /** "Only visible to you" messages, oldest first. */
  ephemerals: PageEphemeral[];
  modal: OpenModal | null;
}

export function pageState(input: {
  model: WorkspaceModel;
  healthUrl: string | null;
  connected: boolean;
  notice: string | null;
  modal: OpenModal | undefined;
}): PageState {
  const { model } = input;
  const users = { [LOCAL_USER.id]: LOCAL_USER.name, [model.bot.userId]: BOT_NAME };
  const toPage = (m: FakeMessage): PageMessage => ({
    ts: m.ts,
    threadTs: m.threadTs ?? null,
    user: m.user,
    userName: users[m.user] ?? m.user,
    isBot: m.user === model.bot.userId,
    text: m.text,
    blocks: m.blocks ?? null,
    edited: m.edits > 0,
  });
  const inChannel = model.messages.filter((m) => m.channel === LOCAL_CHANNEL.id);
  const messages = inChannel
    .filter((m) => !m.threadTs || m.threadTs === m.ts)
    .map((parent) => ({ ...toPage(parent), replies: inChannel.filter((m) => m.threadTs === parent.ts && m.ts !== parent.ts).map(toPage) }));
  const ephemerals = model.ephemerals
    .filter((e) => e.channel === LOCAL_CHANNEL.id && e.user === LOCAL_USER.id)
    .map((e: FakeEphemeral): PageEphemeral => ({ ts: e.ts, threadTs: e.threadTs ?? null, text: e.text, blocks: e.blocks ?? null }));
  return {
    healthUrl: input.healthUrl,
    connected: input.connected,
    notice: input.notice,
    channel: { ...LOCAL_CHANNEL },
    me: { ...LOCAL_USER },
    bot: { id: model.bot.userId, name: BOT_NAME },
    users,
    messages,
    ephemerals,
    modal: input.modal ?? null,
  };
}
