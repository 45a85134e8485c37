import type { App } from '@slack/bolt';
import type { BotDeps } from '../../bot-deps.ts';
import { messageAuthor, type MessageAuthorship } from '../../surface/bot-identity.ts';
import type { SlackClient } from '../../surface/slack-client.ts';
import type { InboxContext } from '../../ingress/inbox-receiver.ts';
import { looksLikeSchedule } from '../../../schedules/index.ts';
import { describeError, tellPrivately, tellThread, TRY_AGAIN } from '../../surface/replies.ts';
import { createScheduleFor, errorView, postViewInThread } from '../../schedule-requests.ts';
import { markAnsweredInThread } from '../../surface/question-messages.ts';
import { HELP_TEXT, smallTalkReply, thanksReply } from '../../views/help.ts';
import type { Refusal } from '../../../agent/model/refusal.ts';
import { redactText } from '../../../agent/text/redact.ts';
import { type Text, words } from '../../../agent/text/text.ts';
import { checkRequester } from '../../../agent/decisions/request-check.ts';

/** `<@UBOT> do the thing` → `do the thing`; Slack puts the mention first but a person may not. */
export function taskText(text: string, botUserId: string | undefined): string {
  const own = botUserId ? new RegExp(`<@${botUserId}(\\|[^>]*)?>`, 'g') : /^\s*<@[UW][A-Z0-9]+(\|[^>]*)?>/;
  return text.replace(own, '').replace(/\s+/g, ' ').trim();
}

/** `<@U2> cancel` → `cancel`: mentions in front of a follow-up address people, they are not the answer. */
export function followUpText(text: string): string {
  return text.replace(/^\s*(?:<@[A-Z0-9]+(?:\|[^>]*)?>\s*)+/, '').trim();
}

export const IGNORED_FOLLOW_UP =
  'Nothing in this thread\'s run is waiting for an answer. Say "cancel" to stop a run that is still going, or mention me outside this thread to start something new.';

/** The policy's words on who may answer or cancel for the run, and that nothing was recorded. */
export function refusedFollowUp(refusal: Refusal<string, Text>): Text {
  return words`${refusal.message} Your message changed nothing.`;
}

/** A message addressed to the bot: a mention in a channel, or a direct message. */
export interface MessageToBot {
  eventId: string | undefined;
  requestId: string | undefined;
  user: string;
  channel: string;
  ts: string;
  /** Set when the message is a reply in a thread (then it may be a follow-up for that thread's run). */
  threadTs: string | undefined;
  text: string;
  /** The inbox's word that the request will be handled again (the store failed meanwhile). */
  handledAgainLater?: () => boolean;
}

/**
 * A mention starts a run in its thread; a mention inside a run's thread is a follow-up for that run.
 * Only people's mentions count, and those of apps TANDEM_ALLOW_BOTS lists; the bot's own never do.
 * Slack's redeliveries never get here (the inbox drops them); a mention handled again after a crash
 * finds the run it already started.
 */
export function registerMention(app: App, deps: BotDeps): void {
  app.event('app_mention', async ({ event, body, context, client }) => {
    const eventId = (body as { event_id?: string }).event_id;
    const author = messageAuthor(event as MessageAuthorship, context, deps.allowBots ?? []);
    // Not answered: a reply to another app invites its reply, and two bots would talk forever.
    if ('ignored' in author) return deps.logger.debug({ eventId, channel: event.channel, why: author.ignored }, 'mention ignored');
    const requestId = (context as InboxContext).inboxKey;
    await handleMessageToBot(deps, client, {
      eventId,
      requestId,
      user: author.user,
      channel: event.channel,
      ts: event.ts,
      threadTs: event.thread_ts,
      text: taskText(event.text, context.botUserId),
      handledAgainLater: (context as InboxContext).handledAgainLater,
    });
  });
}

/** The same flow wherever the bot is asked: a follow-up in a run's thread, help, a schedule, or a new run. */
export async function handleMessageToBot(deps: BotDeps, client: SlackClient, message: MessageToBot): Promise<void> {
  const { user, channel, text, eventId, requestId } = message;
  const threadTs = message.threadTs ?? message.ts;
  try {
    if (message.threadTs) {
      const outcome = await deps.agent.followUp({ conversation: { channel, threadTs: message.threadTs }, userId: user, text: followUpText(text), requestId });
      if (outcome === 'ignored') {
        // A thank-you after the run is answered in kind; anything else learns that nothing is waiting.
        await tellPrivately(client, deps.logger, { channel, user, threadTs, text: thanksReply(text) ?? IGNORED_FOLLOW_UP });
      }
      if (typeof outcome === 'object') {
        await tellPrivately(client, deps.logger, { channel, user, threadTs, text: refusedFollowUp(outcome.refused) });
        return;
      }
      if (outcome === 'answered') {
        // Redacted as the store keeps it: a secret typed in an answer never reaches Slack again.
        const answer = redactText(followUpText(text), deps.secrets);
        const answered = { channel, threadTs: message.threadTs, by: user, answer, stored: (runId: string) => deps.runs.listQuestions(runId) };
        await markAnsweredInThread(client, answered).catch((error: unknown) =>
          deps.logger.warn({ err: describeError(error), channel }, 'could not mark the question answered'),
        );
      }
      if (outcome !== 'no-run') return;
    }
    if (!text) {
      await tellThread(client, deps.logger, { channel, threadTs, text: HELP_TEXT });
      return;
    }
    // "hello" and "thanks" get a word back, not a run that fails to plan them.
    const smallTalk = smallTalkReply(text, user);
    if (smallTalk) {
      await tellThread(client, deps.logger, { channel, threadTs, text: smallTalk });
      return;
    }
    if (deps.schedules && looksLikeSchedule(text)) {
      const made = await createScheduleFor(deps, client, { text, channel, user });
      await postViewInThread(client, deps.logger, { channel, threadTs, view: made.ok ? made.value : errorView(made.error) });
      return;
    }
    // TANDEM_POLICY may say who can ask for a run at all: anyone else is told privately, and nothing is stored.
    const mayRequest = await checkRequester(deps.policy, { user, channel });
    if (!mayRequest.ok) {
      await tellPrivately(client, deps.logger, { channel, user, threadTs, text: mayRequest.error });
      return;
    }
    await deps.agent.startRun({ task: text, requester: user, conversation: { channel, threadTs }, origin: 'mention', ...(requestId ? { requestId } : {}) });
  } catch (error) {
    deps.logger.error({ err: describeError(error), channel, eventId }, 'handling a message to the bot failed');
    // The store failed meanwhile: the request is handled again once it takes writes, and that answers.
    if (message.handledAgainLater?.()) return;
    await tellThread(client, deps.logger, { channel, threadTs, text: `I could not start on that: ${describeError(error)}. ${TRY_AGAIN}` });
  }
}
