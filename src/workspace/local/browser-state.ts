import type { FakeEphemeral, FakeMessage, WorkspaceModel } from '../slack-fake/workspace-model.ts';
import { threadSurfaces, type ThreadSurfaces } from './agent-surfaces.ts';
import type { DemoPresentation } from './demo-presentation.ts';
import { BOT_NAME, LOCAL_CHANNEL, LOCAL_CONVERSATIONS, LOCAL_DM } from './local-identity.ts';
import type { OpenModal } from './modal-session.ts';
import type { People, WorkspacePerson } from './people.ts';

export interface PageMessage {
  /** The conversation it is in: #general or the DM with the bot. */
  channel: string;
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
  channel: string;
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
  /** The direct message with the bot. */
  dm: { id: string; name: string };
  /** The person the page acts as now. */
  me: { id: string; name: string };
  /** Everyone the page can act as (one, except in the demo). */
  people: WorkspacePerson[];
  /** Set in the demo: its banner and guided tasks. */
  demo: DemoPresentation | null;
  bot: { id: string; name: string };
  users: Record<string, string>;
  /**
   * Messages at the top of #general and of the DM (not replies), oldest first, each with its replies
   * and what Slack's agent surfaces show on its thread.
   */
  messages: (PageMessage & { replies: PageMessage[]; surfaces: ThreadSurfaces })[];
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
  people: People;
  demo: DemoPresentation | null;
}): PageState {
  const { model } = input;
  const me = input.people.current();
  const users = { ...input.people.names(), [model.bot.userId]: BOT_NAME };
  const toPage = (m: FakeMessage): PageMessage => ({
    channel: m.channel,
    ts: m.ts,
    threadTs: m.threadTs ?? null,
    user: m.user,
    userName: users[m.user] ?? m.user,
    isBot: m.user === model.bot.userId,
    text: m.text,
    blocks: m.blocks ?? null,
    edited: m.edits > 0,
  });
  const local = model.messages.filter((m) => LOCAL_CONVERSATIONS.includes(m.channel));
  const messages = local
    .filter((m) => !m.threadTs || m.threadTs === m.ts)
    .map((parent) => ({
      ...toPage(parent),
      replies: local.filter((m) => m.channel === parent.channel && m.threadTs === parent.ts && m.ts !== parent.ts).map(toPage),
      surfaces: threadSurfaces(model, parent.channel, parent.ts),
    }));
  const ephemerals = model.ephemerals
    .filter((e) => LOCAL_CONVERSATIONS.includes(e.channel) && e.user === me.id)
    .map((e: FakeEphemeral): PageEphemeral => ({ channel: e.channel, ts: e.ts, threadTs: e.threadTs ?? null, text: e.text, blocks: e.blocks ?? null }));
  return {
    healthUrl: input.healthUrl,
    connected: input.connected,
    notice: input.notice,
    channel: { ...LOCAL_CHANNEL },
    dm: { ...LOCAL_DM },
    me: { id: me.id, name: me.name },
    people: [...input.people.list],
    demo: input.demo,
    bot: { id: model.bot.userId, name: BOT_NAME },
    users,
    messages,
    ephemerals,
    modal: input.modal ?? null,
  };
}
