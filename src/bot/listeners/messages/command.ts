import type { App, RespondFn } from '@slack/bolt';
import { FINAL_RUN_STATUSES, type RunStatus } from '../../../agent/ports/run-store.ts';
import type { BotDeps } from '../../bot-deps.ts';
import { describeError, TRY_AGAIN } from '../../surface/replies.ts';
import { OPEN_THREAD_ACTION_PREFIX, runLine, statusBlocks } from '../../views/app-home.ts';
import { asSlackBlocks } from '../../views/limits.ts';
import type { RunRecord } from '../../../agent/ports/run-store.ts';
import type { SlackClient } from '../../surface/slack-client.ts';
import { HELP_TEXT } from '../../views/help.ts';
import { escapeText, mention, mrkdwn } from '../../views/text.ts';
import { answerScheduleCommand } from './schedule-command.ts';

const ACTIVE: RunStatus[] = ['planning', 'awaiting-approval', 'awaiting-answer', 'executing', 'paused', 'rolling-back'];

/** `/tandem help|status|runs|cancel <runId>|schedule <when> <task>|schedules`: ack at once, answer through the response URL. */
export function registerCommand(app: App, deps: BotDeps): void {
  app.command('/tandem', async ({ ack, command, respond, client }) => {
    await ack();
    const [verb = 'help', ...rest] = command.text.trim().split(/\s+/).filter(Boolean);
    try {
      const lowered = verb.toLowerCase();
      if (lowered === 'schedule' || lowered === 'schedules') {
        const text = command.text.trim().slice(verb.length).trim();
        await answerScheduleCommand({ verb: lowered, text, channel: command.channel_id, user: command.user_id }, deps, client, respond);
        return;
      }
      await answer(lowered, rest, { userId: command.user_id, channel: command.channel_id }, deps, respond, client);
    } catch (error) {
      deps.logger.error({ err: describeError(error), verb }, '/tandem failed');
      await respond({ response_type: 'ephemeral', text: `That did not work: ${escapeText(describeError(error))}. ${TRY_AGAIN}` });
    }
  });
  // "Open thread" is a link: Slack opens it and still tells the app; there is nothing to do but acknowledge.
  app.action(new RegExp(`^${OPEN_THREAD_ACTION_PREFIX}-`), async ({ ack }) => {
    await ack();
  });
}

/** The threads' permalinks (chat.getPermalink); a run whose link Slack does not give gets the archive address. */
async function permalinks(client: SlackClient, runs: readonly RunRecord[]): Promise<Map<string, string>> {
  const found = await Promise.all(
    runs.map(async (run) => {
      const got = await client.chat.getPermalink({ channel: run.conversation.channel, message_ts: run.conversation.threadTs }).catch(() => undefined);
      return [run.id, got?.permalink] as const;
    }),
  );
  return new Map(found.filter((entry): entry is readonly [string, string] => typeof entry[1] === 'string'));
}

/** `status` and `cancel` act on the channel the command is typed in: a run of another channel (a DM, a private channel) is neither listed nor cancelled from here. */
async function answer(
  verb: string,
  args: string[],
  where: { userId: string; channel: string },
  deps: BotDeps,
  respond: RespondFn,
  client: SlackClient,
): Promise<void> {
  const { userId, channel } = where;
  // Private: the list is for the person who asked, one line per run with a button to its thread.
  if (verb === 'status') {
    const runs = await deps.runs.listRuns({ limit: 20, statuses: ACTIVE, channel });
    const text = runs.length
      ? `*Runs in progress in this channel:*\n${runs.map((run) => runLine(run, { withId: true })).join('\n')}`
      : 'No runs in progress in this channel.';
    await respond({ response_type: 'ephemeral', text, blocks: asSlackBlocks(statusBlocks(runs, await permalinks(client, runs))) });
    return;
  }
  if (verb === 'runs') {
    const runs = await deps.runs.listRuns({ limit: 10, requester: userId });
    const text = runs.length
      ? `*Your recent runs:*\n${runs.map((run) => runLine(run, { withId: true })).join('\n')}`
      : 'You have no runs yet. Mention me with a task to start one.';
    await respond({ response_type: 'ephemeral', text });
    return;
  }
  if (verb === 'cancel') {
    const runId = args[0];
    if (!runId) {
      await respond({ response_type: 'ephemeral', text: 'Which run? Use `/tandem cancel <runId>` (`/tandem status` lists them).' });
      return;
    }
    const run = await deps.runs.getRun(runId);
    if (!run || run.conversation.channel !== channel) {
      await respond({
        response_type: 'ephemeral',
        text: `No run \`${escapeText(runId)}\` in this channel. \`/tandem status\` lists the runs in progress here.`,
      });
      return;
    }
    if (FINAL_RUN_STATUSES.includes(run.status)) {
      await respond({ response_type: 'ephemeral', text: `Run \`${escapeText(runId)}\` already ended (${run.status}).` });
      return;
    }
    const result = await deps.agent.cancel({ runId, userId });
    await respond(
      result.ok
        ? { response_type: 'in_channel', text: `${mention(userId)} cancelled run \`${escapeText(runId)}\`.` }
        : { response_type: 'ephemeral', text: mrkdwn(result.error.message) },
    );
    return;
  }
  await respond({ response_type: 'ephemeral', text: verb === 'help' ? HELP_TEXT : `I don't know \`${escapeText(verb)}\`.\n${HELP_TEXT}` });
}
