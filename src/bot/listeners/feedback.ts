import type { App } from '@slack/bolt';
import type { BotDeps } from '../bot-deps.ts';
import { describeError } from '../replies.ts';
import { decodeFeedback, FEEDBACK_ACTION } from '../views/feedback.ts';

/**
 * A thumbs up or down on a run's summary is kept with the run, the plan version and its author. Slack
 * draws the pressed state itself, so nothing is posted; a second click by the same person (on this or
 * an older summary) is not counted again.
 */
export function registerFeedback(app: App, deps: BotDeps): void {
  app.action(FEEDBACK_ACTION, async ({ ack, action, body }) => {
    await ack();
    const ref = decodeFeedback((action as { value?: string }).value);
    if (!ref || !deps.feedback) return;
    try {
      const plan = await deps.runs.getPlanVersion(ref.runId, ref.planVersion);
      if (!plan) return;
      const recorded = await deps.feedback.record({
        runId: ref.runId,
        userId: body.user.id,
        value: ref.value,
        planVersion: ref.planVersion,
        authorKind: plan.authorKind,
        authorId: plan.authorId,
      });
      if (!recorded) deps.logger.debug({ runId: ref.runId, user: body.user.id }, 'feedback on this run was already given by this person');
    } catch (error) {
      deps.logger.warn({ err: describeError(error), runId: ref.runId }, 'could not store feedback');
    }
  });
}
