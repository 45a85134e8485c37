import type { App } from '@slack/bolt';
import type { BotDeps } from '../../bot-deps.ts';
import { registerModalButton } from '../modal-button.ts';
import { describeError, tellPrivately, TRY_AGAIN } from '../../surface/replies.ts';
import type { SlackClient } from '../../surface/slack-client.ts';
import { asSlackBlocks, type MessageBlock } from '../../views/limits.ts';
import { mention } from '../../views/text.ts';
import {
  decodeReassignButton,
  decodeReassignModal,
  REASSIGN_ACTION,
  REASSIGN_BLOCK,
  REASSIGN_CALLBACK,
  REASSIGN_INPUT,
  reassignModal,
  withAddressee,
  type ReassignTarget,
} from '../../views/run/reassign.ts';
import type { Reassigned, WaitRef } from '../../../agent/ports/run-store.ts';
import type { Logger } from '../../../observability/logger.ts';

/** Slack's own bot user: never a person to hand a wait to. */
const SLACKBOT = 'USLACKBOT';

/**
 * **Reassign** on a wait for a person: the button opens a user picker (a trigger id lives 3 s, so
 * nothing is looked up first); the submission checks the picked user is a person who can act (not a
 * bot, not deactivated, not the clicker), then the agent decides and records the hand-over. The wait's
 * message then says whom it waits on, and that person is pinged in the thread.
 */
export function registerReassignActions(app: App, deps: BotDeps): void {
  registerModalButton(app, deps, {
    actionId: REASSIGN_ACTION,
    decode: decodeReassignButton,
    unrecognised: 'That button is not from a wait I recognise; nothing was done.',
    modal: (ref, message) => reassignModal({ ref, ...message }),
    name: 'Reassign',
    notOpened: (why) => `I could not open the Reassign form (${why}). Click Reassign again.`,
  });

  app.view(REASSIGN_CALLBACK, async ({ ack, body, view, client }) => {
    const target = decodeReassignModal(view.private_metadata);
    const to = view.state.values[REASSIGN_BLOCK]?.[REASSIGN_INPUT]?.selected_user ?? '';
    if (target && !to) {
      await ack({ response_action: 'errors', errors: { [REASSIGN_BLOCK]: 'Pick the person to hand this to.' } });
      return;
    }
    await ack();
    const userId = body.user.id;
    const tell = (text: Parameters<typeof tellPrivately>[2]['text']) =>
      target ? tellPrivately(client, deps.logger, { channel: target.channel, user: userId, text }) : Promise.resolve();
    if (!target) {
      deps.logger.warn({ userId }, 'a Reassign form that is not one of ours');
      return;
    }
    try {
      const unfit = await whyNotAPerson(client, to, userId);
      if (unfit) {
        await tell(`${unfit} Nothing changed.`);
        return;
      }
      const result = await deps.agent.reassign({ wait: target.ref, userId, to });
      if (!result.ok) {
        await tell(result.error.message);
        return;
      }
      await announce(client, deps, target, result.value);
    } catch (error) {
      deps.logger.error({ err: describeError(error) }, 'reassigning a wait failed');
      await tell(`The hand-over was not recorded: ${describeError(error)}. ${TRY_AGAIN}`);
    }
  });
}

function carriesReassignOf(elements: readonly { action_id?: string; value?: string }[], ref: WaitRef): boolean {
  return elements.some((element) => element.action_id === REASSIGN_ACTION && JSON.stringify(decodeReassignButton(element.value)) === JSON.stringify(ref));
}

/** Why the picked user cannot take a wait (a bot, a deactivated account, the clicker), or undefined. */
async function whyNotAPerson(client: SlackClient, to: string, by: string): Promise<string | undefined> {
  if (to === by) return 'That is you: pick someone else to hand this to.';
  if (to === SLACKBOT) return 'Slackbot is not a person who can answer this; pick a person.';
  let user: { is_bot?: boolean; deleted?: boolean } | undefined;
  try {
    user = (await client.users.info({ user: to })).user;
  } catch (error) {
    // Only Slack's word that there is no such user refuses. When Slack cannot say (a missing users:read scope,
    // an outage), the hand-over goes on: the policy still decides whether that person may answer the wait.
    if ((error as { data?: { error?: string } }).data?.error === 'user_not_found')
      return `I could not find ${mention(to)} in this workspace; pick someone else.`;
    return undefined;
  }
  if (!user) return `I could not find ${mention(to)} in this workspace; pick someone else.`;
  if (user.is_bot) return `${mention(to)} is an app, not a person who can answer this; pick a person.`;
  if (user.deleted) return `${mention(to)} is deactivated and cannot answer this; pick someone else.`;
  return undefined;
}

/** The wait's message says whom it waits on now, and that person is pinged in the run's thread. Best effort: the hand-over is stored. */
async function announce(client: SlackClient, deps: BotDeps, target: ReassignTarget, handed: Reassigned): Promise<void> {
  const run = await deps.runs.getRun(handed.runId).catch(() => undefined);
  if (!run) return;
  // The run's own channel and thread, whatever the form carried: a forged form can mark nothing else.
  const { channel, threadTs } = run.conversation;
  await markMessage(client, deps.logger, { ...target, channel, threadTs }, handed);
  const link = await client.chat
    .getPermalink({ channel, message_ts: target.ts })
    .then((answer) => answer.permalink)
    .catch(() => undefined);
  const what = link ? `<${link}|this>` : 'the message above';
  try {
    await client.chat.postMessage({
      channel,
      thread_ts: threadTs,
      text: `${mention(handed.to)} ${mention(handed.by)} handed ${what} to you: it waits on you now.`,
    });
  } catch (error) {
    deps.logger.warn({ err: describeError(error), runId: handed.runId }, 'could not ping the new addressee');
  }
}

async function markMessage(client: SlackClient, logger: Logger, where: ReassignTarget & { threadTs: string }, handed: Reassigned): Promise<void> {
  try {
    const replies = await client.conversations.replies({ channel: where.channel, ts: where.threadTs, limit: 200 });
    const message = (replies.messages ?? []).find((m) => m.ts === where.ts) as { text?: string; blocks?: MessageBlock[] } | undefined;
    // Only the message whose own Reassign button names this wait.
    if (!message?.blocks || !message.blocks.some((block) => block.type === 'actions' && carriesReassignOf(block.elements, where.ref))) return;
    const blocks = withAddressee(message.blocks, handed.to, handed.by);
    await client.chat.update({ channel: where.channel, ts: where.ts, text: message.text ?? '', blocks: asSlackBlocks(blocks) });
  } catch (error) {
    logger.warn({ err: describeError(error), channel: where.channel }, 'could not mark the wait as handed over');
  }
}
