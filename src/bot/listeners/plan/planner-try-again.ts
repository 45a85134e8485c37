import type { App, BlockAction } from '@slack/bolt';
import type { BotDeps } from '../../bot-deps.ts';
import { describeError, TRY_AGAIN } from '../../surface/replies.ts';
import { decodeTryAgain, PLANNER_TRY_AGAIN_ACTION } from '../../views/run/planner-unavailable.ts';
import { checkRequester } from '../../../agent/decisions/request-check.ts';
import { clickOrigin, privateReplier } from '../click-origin.ts';

/**
 * **Try again** under "the planner is unavailable", and **Propose again** under a plan that expired
 * unapproved: the requester's click plans the same task again as a new run in the same thread (a fresh
 * version, approved anew). The click's run id names the attempt, so clicking twice (or Slack
 * redelivering the click) plans once; a person other than the requester is told who may.
 */
export function registerPlannerTryAgain(app: App, deps: BotDeps): void {
  app.action(PLANNER_TRY_AGAIN_ACTION, async ({ ack, action, body, client }) => {
    await ack();
    const runId = decodeTryAgain((action as { value?: string }).value);
    if (!runId) return;
    const origin = clickOrigin(body as BlockAction);
    const reply = privateReplier(client, deps.logger, origin);
    try {
      const run = await deps.runs.getRun(runId);
      if (!run) return await reply('I no longer know that task, so there is nothing to try again. Mention me with it instead.');
      if (origin.user !== run.requester) return await reply(`Only <@${run.requester}>, who asked for this, can try it again.`);
      // The policy in force now decides, as for a mention: it may have changed since the first try.
      const mayRequest = await checkRequester(deps.policy, { user: origin.user, channel: run.conversation.channel });
      if (!mayRequest.ok) return await reply(mayRequest.error);
      await deps.agent.startRun({
        task: run.task,
        requester: run.requester,
        conversation: run.conversation,
        origin: run.origin,
        requestId: `try-again:${run.id}`,
      });
    } catch (error) {
      deps.logger.warn({ err: describeError(error), runId }, 'could not plan the task again');
      await reply(`I could not try again: ${describeError(error)}. ${TRY_AGAIN}`);
    }
  });
}
