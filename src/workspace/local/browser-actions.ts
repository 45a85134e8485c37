import { z } from 'zod';
import { stateFromView, type SlackDriver } from '../slack-fake/driver.ts';
import type { SlackFakeServer } from '../slack-fake/server.ts';
import { deliver, NOT_CONNECTED, type Delivery } from './bot-delivery.ts';
import type { ChangeFeed } from './change-feed.ts';
import { compose } from './composer.ts';
import { BOT_NAME, LOCAL_CHANNEL, LOCAL_CONVERSATIONS, LOCAL_DM } from './local-identity.ts';
import type { ModalSession } from './modal-session.ts';
import type { People } from './people.ts';
import type { DemoPresentation } from './demo-presentation.ts';
import { findButton } from './stored-buttons.ts';
import { sessionStatus } from './agent-surfaces.ts';

const Conversation = z.enum([LOCAL_CHANNEL.id, LOCAL_DM.id]);
const Ts = z.string().regex(/^\d+\.\d+$/);

export interface BrowserContext {
  fake: SlackFakeServer;
  modal: ModalSession;
  feed: ChangeFeed;
  bot(): { driver: SlackDriver; eventsUrl: string } | undefined;
  /** The last problem reaching the bot, shown on the page until a delivery works again. */
  notice: { text: string | null };
  /** The `Set-Cookie` value that carries the workspace key on the page's own requests. */
  cookie: string;
  /** Who the page acts as now (one person, or the demo's several). */
  people: People;
  /** Set in the demo: what the page shows of it. */
  demo: DemoPresentation | null;
}

export type ActionAnswer = { status: number; body: Record<string, unknown> & { ok: boolean } };

/** Typed in #general (the default) or in the DM with the bot, at the top level or in a thread. */
export const PostMessage = z.object({ text: z.string().min(1).max(4000), channel: Conversation.optional(), threadTs: Ts.optional() });
/**
 * Which button was clicked; its value is the one the bot stored on the message, never the request's.
 * `feedback` names one thumb of Slack's feedback buttons.
 */
export const ClickButton = z.object({
  messageTs: z.string(),
  actionId: z.string().min(1),
  blockId: z.string().optional(),
  feedback: z.enum(['positive', 'negative']).optional(),
});
/** Slack's own Stop on a thread's agent session. */
export const StopSession = z.object({ channel: Conversation, threadTs: Ts });
export const SubmitModal = z.object({ viewId: z.string(), values: z.record(z.string(), z.string()) });
export const CloseModal = z.object({ viewId: z.string() });

const refused = (status: number, error: string): ActionAnswer => ({ status, body: { ok: false, error } });

async function toBot(ctx: BrowserContext, send: (driver: SlackDriver) => ReturnType<SlackDriver['send']>): Promise<Delivery> {
  const bot = ctx.bot();
  if (!bot) return { ok: false, error: NOT_CONNECTED };
  const delivered = await deliver(bot.eventsUrl, () => send(bot.driver));
  ctx.notice.text = delivered.ok ? null : delivered.error;
  ctx.feed.changed();
  return delivered;
}

/**
 * A message typed in a composer, read as Slack would: in #general a mention becomes a signed
 * app_mention and anything else stays a person's message; in the DM every message reaches the bot
 * (message.im). `/tandem …` is the slash command, answered in #general (the only place its
 * response URL answers here).
 */
export async function postMessage(ctx: BrowserContext, input: z.infer<typeof PostMessage>): Promise<ActionAnswer> {
  const { model } = ctx.fake;
  const channel = input.channel ?? LOCAL_CHANNEL.id;
  const composed = compose(input.text, { userId: model.bot.userId, name: BOT_NAME });
  if (input.threadTs && !model.findMessage(channel, input.threadTs)) return refused(404, 'That thread is not in this conversation.');
  if (composed.kind === 'command') {
    if (channel !== LOCAL_CHANNEL.id) return refused(400, `In the local workspace /${BOT_NAME} works in #${LOCAL_CHANNEL.name}.`);
    const delivered = await toBot(ctx, (driver) =>
      driver.command({ user: ctx.people.current().id, channel: LOCAL_CHANNEL.id, text: composed.text, command: composed.command }),
    );
    return delivered.ok ? { status: 200, body: { ok: true } } : refused(503, delivered.error);
  }
  const toTheBot = channel === LOCAL_DM.id || composed.mentionsBot;
  if (!toTheBot) {
    const message = model.addUserMessage({ channel, user: ctx.people.current().id, text: composed.text, threadTs: input.threadTs });
    ctx.feed.changed();
    return { status: 200, body: { ok: true, ts: message.ts } };
  }
  let ts = '';
  const delivered = await toBot(ctx, (driver) => {
    const message = { channel, user: ctx.people.current().id, text: composed.text, threadTs: input.threadTs };
    const sent = channel === LOCAL_DM.id ? driver.directMessage(message) : driver.mention(message);
    ts = sent.ts;
    return sent;
  });
  return delivered.ok ? { status: 200, body: { ok: true, ts } } : refused(503, delivered.error);
}

/**
 * A button click on a message: a signed block_actions carrying the message as Slack would. Only a
 * button of a message the bot posted can be clicked, and the bot gets that button's stored value and
 * block id, as Slack sends them: the page names which button, nothing more.
 */
export async function clickButton(ctx: BrowserContext, input: z.infer<typeof ClickButton>): Promise<ActionAnswer> {
  const { model } = ctx.fake;
  const message = LOCAL_CONVERSATIONS.map((channel) => model.findMessage(channel, input.messageTs)).find((found) => found !== undefined);
  const button = message && message.user === model.bot.userId ? findButton(message.blocks, input.actionId, input.blockId, input.feedback) : undefined;
  if (!message || !button) return refused(404, 'That button is no longer on the message.');
  const delivered = await toBot(ctx, (driver) =>
    driver.click({
      user: ctx.people.current().id,
      channel: message.channel,
      messageTs: message.ts,
      threadTs: message.threadTs,
      actionId: button.actionId,
      value: button.value,
      blockId: button.blockId,
      message: { text: message.text, blocks: message.blocks },
      ...(button.feedback ? { feedback: button.feedback } : {}),
    }),
  );
  return delivered.ok ? { status: 200, body: { ok: true } } : refused(503, delivered.error);
}

/**
 * Slack's Stop under a thread whose agent session is processing: Slack sends the app
 * `agent_session_stopped` and leaves stopping the work to it. Offered only while the bot says it is working.
 */
export async function stopSession(ctx: BrowserContext, input: z.infer<typeof StopSession>): Promise<ActionAnswer> {
  if (sessionStatus(ctx.fake.model, input.channel, input.threadTs) !== 'processing') return refused(409, 'Nothing is running in this thread.');
  const delivered = await toBot(ctx, (driver) =>
    driver.event({
      type: 'agent_session_stopped',
      channel: input.channel,
      user: ctx.people.current().id,
      thread_ts: input.threadTs,
      event_ts: `${Date.now() / 1000}`,
    }),
  );
  return delivered.ok ? { status: 200, body: { ok: true } } : refused(503, delivered.error);
}

/** A modal submission: the bot's `response_action: errors` stays on the modal's fields. */
export async function submitModal(ctx: BrowserContext, input: z.infer<typeof SubmitModal>): Promise<ActionAnswer> {
  const open = ctx.modal.openView(input.viewId);
  if (!open) return refused(409, 'This modal is no longer open.');
  const view = open.view as { callback_id?: string; private_metadata?: string; blocks?: unknown };
  const values = stateFromView(view, input.values);
  const delivered = await toBot(ctx, (driver) =>
    driver.submitView({
      user: ctx.people.current().id,
      view: { id: open.id, callback_id: view.callback_id ?? '', private_metadata: view.private_metadata },
      values,
    }),
  );
  if (!delivered.ok) return refused(503, delivered.error);
  const outcome = ctx.modal.applySubmitAnswer(delivered.body);
  ctx.feed.changed();
  return { status: 200, body: { ok: true, ...outcome } };
}

export function closeModal(ctx: BrowserContext, input: z.infer<typeof CloseModal>): ActionAnswer {
  if (ctx.modal.openView(input.viewId)) ctx.modal.close();
  ctx.feed.changed();
  return { status: 200, body: { ok: true } };
}
