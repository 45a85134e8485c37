import type { App, BlockAction } from '@slack/bolt';
import type { BotDeps } from '../../bot-deps.ts';
import { describeError, TRY_AGAIN } from '../../surface/replies.ts';
import { decodeFeedback, FEEDBACK_ACTION } from '../../views/run/feedback.ts';
import { clickOrigin, privateReplier } from '../click-origin.ts';

/**
 * A thumbs up or down on a run's summary is kept with the run, the plan version and its author. Slack
 * draws the pressed button but tells the clicker nothing more, so the bot answers privately, as Slack's
 * own agent samples do: "noted", or that their first answer on this run stands (a second click, on
 * this or an older summary, is not counted again).
 */
export function registerFeedback(app: App, deps: BotDeps): void {
  app.action(FEEDBACK_ACTION, async ({ ack, action, body, client }) => {
    await ack();
    const ref = decodeFeedback((action as { value?: string }).value);
    if (!ref || !deps.feedback) return;
    const origin = clickOrigin(body as BlockAction);
    const reply = privateReplier(client, deps.logger, origin);
    try {
      const plan = await deps.runs.getPlanVersion(ref.runId, ref.planVersion);
      if (!plan) return await reply('I no longer know that run, so your feedback was not kept.');
      const recorded = await deps.feedback.record({
        runId: ref.runId,
        userId: origin.user,
        value: ref.value,
        planVersion: ref.planVersion,
        authorKind: plan.authorKind,
        authorId: plan.authorId,
      });
      await reply(recorded ? feedbackNoted(ref.value) : FEEDBACK_ALREADY_GIVEN);
    } catch (error) {
      deps.logger.warn({ err: describeError(error), runId: ref.runId }, 'could not store feedback');
      await reply(`I could not keep your feedback. ${TRY_AGAIN}`);
    }
  });
}

const feedbackNoted = (value: 'good' | 'bad'): string =>
  `Thanks — noted: this run went ${value === 'good' ? 'well' : 'badly'} for you. It helps judge the plans and runbooks that wrote it.`;

const FEEDBACK_ALREADY_GIVEN = 'You already gave feedback on this run; your first answer is the one kept.';
